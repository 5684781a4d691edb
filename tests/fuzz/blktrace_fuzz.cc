// SPDX-License-Identifier: GPL-2.0
// Fuzzes the blktrace binary reader (sim/trace/blktrace.cc), the merge of
// several CPU files (sim/trace/source.cc) and the IO records built from
// them (sim/trace/ios.cc): the input's parts are the files t.blktrace.0,
// t.blktrace.1, ...; the seeds are real recordings in both byte orders.
#include "trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	efqfuzz::read_trace(data, size, "t.blktrace.");
	return 0;
}
