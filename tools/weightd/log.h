// SPDX-License-Identifier: GPL-2.0
// efq-weightd: logging to stderr (journald picks it up), or to a test's sink.
#pragma once

#include <functional>
#include <string>

namespace efq::weightd {

class Logger {
public:
	explicit Logger(bool verbose = false) : verbose_(verbose) {}
	// Tests capture the lines instead of printing them.
	void set_sink(std::function<void(const std::string &)> sink) { sink_ = std::move(sink); }
	bool verbose() const { return verbose_; }

	void log(const std::string &msg) const;
	void debug(const std::string &msg) const
	{
		if (verbose_)
			log(msg);
	}

private:
	bool verbose_;
	std::function<void(const std::string &)> sink_;
};

} // namespace efq::weightd
