// SPDX-License-Identifier: GPL-2.0
#include "trace_fuzz.h"

#include <memory>
#include <vector>

#include "fuzz.h"
#include "trace/event.h"
#include "trace/ios.h"

namespace efqfuzz {

void read_trace(const uint8_t *data, size_t size, const std::string &stem)
{
	std::vector<std::string> paths;
	for (const std::string &part : split_files(data, size))
		paths.push_back(write_temp(stem + std::to_string(paths.size()), part));
	std::string err;
	std::unique_ptr<efqsim::trace::EventSource> src = efqsim::trace::open_trace(paths, &err);
	if (!src) {
		check_message(err, temp_dir());
		clear_temp_dir();
		return;
	}
	efqsim::trace::IoBuilder b(*src, 1'000'000'000);
	efqsim::trace::IoRecord r;
	uint64_t n = 0;
	while (b.next(&r))
		if (r.id != n++)
			fail("record " + std::to_string(r.id) + " out of order");
	if (!b.error().empty())
		check_message(b.error(), temp_dir());
	clear_temp_dir();
}

} // namespace efqfuzz
