// SPDX-License-Identifier: GPL-2.0
// Helpers of the workload tests: parsing one job file "t.fio" (the jobs,
// and the error message, expected empty unless the caller asks for it), and
// running jobs on a fake host.

#pragma once

#include <gtest/gtest.h>

#include "fake_host.h"
#include "workload/jobfile.h"
#include "workload/jobs.h"

#include <map>
#include <string>
#include <vector>

namespace efqsim::workload::testing {

// The jobs of @text under @c; the error goes to @err, or must be empty.
inline std::vector<JobSpec> parse_text(const ParseContext &c, const std::string &text,
				       std::string *err = nullptr)
{
	std::string e;
	auto jobs = parse_jobs({JobSource{"t.fio", text}}, c, &e);
	if (err)
		*err = e;
	else
		EXPECT_EQ(e, "") << text;
	return jobs;
}

// The error of parsing @text under @c.
inline std::string error_of_text(const ParseContext &c, const std::string &text)
{
	std::string e;
	parse_text(c, text, &e);
	return e;
}

// @jobs run on a fake host of @latency and @servers, until the host has
// nothing left to do or, with @until_finished, until the engine finishes;
// their results and each task's IOs.
struct JobRun {
	JobRun(std::vector<JobSpec> jobs, int64_t latency, unsigned int servers,
	       bool until_finished)
	    : host(latency, servers), engine(host, std::move(jobs))
	{
		EXPECT_TRUE(engine.start());
		if (until_finished)
			host.run_until([&] { return engine.finished(); });
		else
			host.run();
		EXPECT_TRUE(engine.finished());
		results = engine.results();
		for (const auto &r : host.records)
			ios[r.task].push_back(r);
	}
	FakeHost host;
	JobEngine engine;
	std::vector<report::JobResult> results;
	std::map<TaskId, std::vector<FakeHost::Record>> ios;
};

} // namespace efqsim::workload::testing
