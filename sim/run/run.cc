// SPDX-License-Identifier: GPL-2.0
#include "run/run.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "blk/model.h"
#include "dev/device.h"
#include "run/drive.h"
#include "workload/jobs.h"

namespace efqsim::run {
namespace {

Status check_scheduler(const std::string &name, std::string *err)
{
	blk::ensure_modules();
	if (blk::scheduler_exists(name))
		return Status::ok;
	*err = "unknown scheduler '" + name + "' (" + scheduler_list() + ")";
	return Status::bad_input;
}

} // namespace

std::vector<std::string> scheduler_names(const std::string &scheduler)
{
	std::vector<std::string> names = blk::scheduler_names(scheduler);
	return names.empty() ? std::vector<std::string>{scheduler} : names;
}

std::string scheduler_list()
{
	std::string out;
	for (const char *s : {"cfq", "deadline-fq", "as", "noop", "mq-deadline"})
		if (blk::scheduler_exists(s))
			out += (out.empty() ? "" : ", ") + std::string(s);
	return out;
}

namespace {

// Parses the jobs (from files, or sources already read) for @setup's device
// and runs them.
Status parse_and_run(
	const Setup &setup,
	const std::function<std::vector<workload::JobSpec>(
		const workload::ParseContext &, std::string *, workload::JobFileInfo *)> &parse,
	report::RunResult *result, std::string *err)
{
	if (Status s = check_scheduler(setup.scheduler, err); s != Status::ok)
		return s;
	std::unique_ptr<dev::Device> dev = dev::make_device(setup.device, err);
	if (!dev)
		return Status::bad_input;
	workload::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	ctx.scheduler_names = scheduler_names(setup.scheduler);
	ctx.seed = setup.seed;
	workload::JobFileInfo info;
	std::vector<workload::JobSpec> jobs = parse(ctx, err, &info);
	if (jobs.empty()) {
		if (err->empty())
			*err = "the job files define no job";
		return Status::bad_input;
	}
	return run_jobs(setup, std::move(jobs), info, result, err);
}

} // namespace

Status run_jobfiles(const Setup &setup, const std::vector<std::string> &paths,
		    report::RunResult *result, std::string *err)
{
	return parse_and_run(
		setup,
		[&](const workload::ParseContext &ctx, std::string *e,
		    workload::JobFileInfo *info) {
			return workload::parse_jobfiles(paths, ctx, e, info);
		},
		result, err);
}

Status run_sources(const Setup &setup, const std::vector<workload::JobSource> &sources,
		   report::RunResult *result, std::string *err)
{
	return parse_and_run(
		setup,
		[&](const workload::ParseContext &ctx, std::string *e,
		    workload::JobFileInfo *info) {
			return workload::parse_jobs(sources, ctx, e, info);
		},
		result, err);
}

std::unique_ptr<blk::Model> make_model(const Setup &setup, std::string *device_name,
				       std::string *err)
{
	std::unique_ptr<dev::Device> dev = dev::make_device(setup.device, err);
	if (!dev)
		return nullptr;
	*device_name = dev->name();
	if (setup.prepare_device)
		setup.prepare_device(*dev);
	blk::Config cfg;
	cfg.scheduler = setup.scheduler;
	cfg.hierarchical = setup.hierarchical;
	cfg.tunables = setup.tunables;
	cfg.nr_requests = setup.nr_requests;
	auto model = std::make_unique<blk::Model>(std::move(dev), cfg);
	if (!model->init(err))
		return nullptr;
	return model;
}

Status run_jobs(const Setup &setup, std::vector<workload::JobSpec> jobs,
		const workload::JobFileInfo &info, report::RunResult *result, std::string *err)
{
	if (Status s = check_scheduler(setup.scheduler, err); s != Status::ok)
		return s;
	std::string device_name;
	std::unique_ptr<blk::Model> m = make_model(setup, &device_name, err);
	if (!m)
		return Status::bad_input;
	blk::Model &model = *m;

	if (setup.prepare_jobs)
		setup.prepare_jobs(jobs);
	int64_t start = model.now();
	workload::JobEngine engine(model, std::move(jobs));
	if (!engine.start()) {
		*err = model.task_error().empty() ? "a job's task could not be created"
						  : model.task_error();
		return Status::bad_input;
	}
	Drive drive(model, start, setup.progress);
	const bool limit = !drive.run([&] { return engine.finished(); },
				      [start] { return start + kMaxSimNs; });
	int64_t end = limit ? model.now() : engine.end_time();
	// What each group got while the jobs ran, as fio measures them: the
	// page cache may still write back for a while after the last job.
	std::vector<report::GroupResult> groups = model.group_results();
	std::vector<report::JobResult> jobs_so_far;
	if (limit) {
		// The report so far, then no more IO: what is outstanding is
		// drained (however slow the device, it is finite), so that the
		// scheduler and the queue go down empty, as after any run.
		jobs_so_far = engine.results();
		engine.stop_all();
		if (!drive.abandon()) {
			*err = "the jobs did not finish within 24 h of simulated time, and their "
			       "outstanding IO did not drain within 24 h more (" +
			       std::to_string(model.outstanding()) + " requests)";
			return Status::internal;
		}
	} else if (!drive.drain()) {
		*err = "requests still outstanding after the jobs ended (" +
		       std::to_string(model.outstanding()) + ")";
		return Status::internal;
	}
	if (std::string broken = model.check_invariants(); !broken.empty()) {
		*err = broken;
		return Status::internal;
	}

	if (setup.inspect)
		setup.inspect(model);

	report::RunResult &r = *result;
	r = report::RunResult{};
	r.efqsim_version = kVersion;
	r.seed = setup.seed;
	r.device = device_name;
	r.scheduler = setup.scheduler;
	r.hierarchical = model.hierarchical();
	r.nr_requests = model.nr_requests();
	r.tunables = model.tunables();
	r.duration_ns = end - start;
	r.jobs = limit ? std::move(jobs_so_far) : engine.results();
	r.groups = std::move(groups);
	r.group_reporting = info.group_reporting;
	r.global_options = info.global_options;
	if (limit) {
		r.stopped = "the simulated-time limit (24 h) was reached before the jobs "
			    "finished: the report covers the first 24 h";
		*err = r.stopped;
		return Status::time_limit;
	}
	return Status::ok;
}

} // namespace efqsim::run
