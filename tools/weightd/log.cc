// SPDX-License-Identifier: GPL-2.0
// efq-weightd: logging (log.h).
#include "log.h"

#include <cstdio>
#include <cstdlib>

namespace efq::weightd {

void Logger::log(const std::string &msg) const
{
	if (sink_) {
		sink_(msg);
		return;
	}
	// Under systemd, journald names the sender itself.
	static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
	std::fprintf(stderr, "%s%s\n", journal ? "" : "efq-weightd: ", msg.c_str());
	std::fflush(stderr);
}

} // namespace efq::weightd
