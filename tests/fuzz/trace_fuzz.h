// SPDX-License-Identifier: GPL-2.0
// The trace harnesses' one check (blktrace_fuzz.cc, blkparse_fuzz.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace efqfuzz {

// Writes the parts of @data (split_files) as files named @stem + N, opens
// them as one trace (open_trace) and reads every IO record out of it
// (IoBuilder, a short horizon).  A bad file must fail with a message that
// names a file of the trace; a good trace's records come out numbered in
// queue order.
void read_trace(const uint8_t *data, size_t size, const std::string &stem);

} // namespace efqfuzz
