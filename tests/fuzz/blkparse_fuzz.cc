// SPDX-License-Identifier: GPL-2.0
// Fuzzes the blkparse text reader (sim/trace/blkparse.cc) and the IO records
// built from its events: the input's parts are the files t.blkparse.0, ...
#include "trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	efqfuzz::read_trace(data, size, "t.blkparse.");
	return 0;
}
