// SPDX-License-Identifier: GPL-2.0
// efqfuzz_dict: prints the fuzzers' dictionary (libFuzzer's -dict format) from
// efqsim's own tables: the job-file options (workload::option_names()), every
// model's device parameters (dev::default_params()), every scheduler's
// tunables (Model::probe_tunables()), the command line's options and --map
// kinds (from its --help texts), the file separator of the harnesses and
// blktrace's magic in both byte orders.  scripts/fuzz writes it to
// build/fuzz/efqsim.dict.
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "blk/model.h"
#include "cli/cli.h"
#include "dev/device.h"
#include "fuzz.h"
#include "workload/jobfile.h"

namespace {

std::string quoted(const std::string &s)
{
	std::string out = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += static_cast<char>(c);
		} else if (c < 0x20 || c >= 0x7f) {
			static const char hex[] = "0123456789abcdef";
			out += "\\x";
			out += hex[c >> 4];
			out += hex[c & 15];
		} else {
			out += static_cast<char>(c);
		}
	}
	return out + "\"";
}

std::string help(std::vector<std::string> args)
{
	std::ostringstream out;
	std::streambuf *saved = std::cout.rdbuf(out.rdbuf());
	args.insert(args.begin(), "efqsim");
	std::vector<char *> argv;
	for (std::string &a : args)
		argv.push_back(a.data());
	efqsim::cli::main(static_cast<int>(argv.size()), argv.data());
	std::cout.rdbuf(saved);
	return out.str();
}

} // namespace

int main()
{
	std::set<std::string> words;
	for (const std::string &o : efqsim::workload::option_names()) {
		words.insert(o + "=");
		words.insert(o);
	}
	words.insert("[global]");
	for (const std::string &m : efqsim::dev::model_names()) {
		words.insert(m + ":");
		std::istringstream params(efqsim::dev::default_params(m));
		for (std::string line; std::getline(params, line);) {
			std::smatch k;
			if (std::regex_search(line, k, std::regex("^\\s*([a-z_0-9]+)\\s*=")))
				words.insert(k[1].str() + "=");
		}
	}
	efqsim::blk::ensure_modules();
	for (const char *s : {"cfq", "deadline-fq", "as", "noop", "mq-deadline"}) {
		if (!efqsim::blk::scheduler_exists(s))
			continue;
		words.insert(s);
		efqsim::blk::Config cfg;
		cfg.scheduler = s;
		std::string err;
		efqsim::blk::Model m(efqsim::dev::make_device("null", &err), cfg);
		if (!m.init(&err))
			efqfuzz::fail(std::string(s) + ": " + err);
		for (const auto &t : m.probe_tunables())
			words.insert(t.name + "=");
	}
	std::string text =
		help({"--help"}) + help({"compare", "--help"}) + help({"replay", "--help"});
	std::regex option("--[a-z][a-z-]*|\\b(pid|comm|cgroup)=");
	for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it)
		words.insert(it->str());
	words.insert("compare\n");
	words.insert("replay\n");
	words.insert(std::string(efqfuzz::kFileSeparator));
	words.insert(std::string("\x07\x74\x61\x65", 4)); // blktrace magic, little endian
	words.insert(std::string("\x65\x61\x74\x07", 4)); // big endian
	for (const std::string &w : words)
		std::cout << quoted(w) << "\n";
	return 0;
}
