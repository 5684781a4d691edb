// SPDX-License-Identifier: GPL-2.0
// efqsim devices: make_device(), the shared request checks, default
// parameters of the built-in models.

#include "device.h"

#include "common/text.h"
#include "hdd.h"
#include "multipath.h"
#include "null_device.h"
#include "params.h"
#include "ssd.h"
#include "throttled.h"

#include <algorithm>

namespace efqsim::dev {

namespace {

// A device spec "MODEL:key=value,..." (a built-in model with some
// parameters changed) as a parameter file without a path; its settings'
// line numbers count the settings from 1.
bool parse_inline_spec(const std::string &spec, ParamFile *f, std::string *err)
{
	size_t colon = spec.find(':');
	f->model = spec.substr(0, colon);
	std::string rest = spec.substr(colon + 1);
	int n = 0;
	size_t pos = 0;
	while (pos <= rest.size()) {
		size_t comma = rest.find(',', pos);
		std::string kv = rest.substr(pos, comma == std::string::npos ? std::string::npos
									     : comma - pos);
		pos = comma == std::string::npos ? rest.size() + 1 : comma + 1;
		n++;
		size_t eq = kv.find('=');
		if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
			*err = printable("device '" + excerpt(spec) + "': '" + excerpt(kv) +
					 "' is not key=value");
			return false;
		}
		std::string key = kv.substr(0, eq);
		for (const Setting &s : f->settings)
			if (s.key == key) {
				*err = printable("device '" + excerpt(spec) + "': " + excerpt(key) +
						 " given twice");
				return false;
			}
		f->settings.push_back({key, kv.substr(eq + 1), n});
	}
	return true;
}

// The parameters of @f applied to @p (the model's defaults) and checked;
// false with the message in @err.
template <class P>
bool configure(const ParamFile &f, const std::vector<Param<P>> &table,
	       std::string (*check)(const P &, std::vector<std::string> *), P &p, std::string *err)
{
	if (f.path.empty() && !f.settings.empty()) {
		// an inline spec: name the device string, not a file line
		for (const Setting &s : f.settings) {
			ParamFile one;
			one.path = "-";
			one.model = f.model;
			one.settings = {s};
			std::string e;
			if (!apply_settings(one, table, &p, &e)) {
				*err = "device " + f.model + ": " + e.substr(e.find(": ") + 2);
				return false;
			}
		}
	} else if (!apply_settings(f, table, &p, err)) {
		return false;
	}
	std::vector<std::string> keys;
	std::string why = check(p, &keys);
	if (!why.empty()) {
		std::string where = locate(f, keys);
		*err = f.path.empty() ? "device " + f.model + ": " + why : at(where, why);
		return false;
	}
	return true;
}

template <class D, class P>
std::unique_ptr<Device> build(const ParamFile &f, const std::vector<Param<P>> &table,
			      std::string (*check)(const P &, std::vector<std::string> *),
			      std::string *err)
{
	P p;
	if (!configure(f, table, check, p, err))
		return nullptr;
	return std::make_unique<D>(p);
}

bool past_capacity(const Device &dev, uint64_t sector, uint64_t sectors)
{
	return sector > dev.capacity_sectors() || sectors > dev.capacity_sectors() - sector;
}

// A discard's ranges: at least one, none empty or past the capacity, adding
// up to @sectors, the first at @sector.  "" if they are right.
std::string check_ranges(const Device &dev, const Request &rq)
{
	if (rq.ranges.empty())
		return "a discard without ranges";
	if (rq.ranges.front().sector != rq.sector)
		return "a discard whose first range starts at " +
		       std::to_string(rq.ranges.front().sector) + ", not at its sector " +
		       std::to_string(rq.sector);
	uint64_t sum = 0;
	for (const Range &x : rq.ranges) {
		if (!x.sectors)
			return "a discard range of 0 sectors";
		if (past_capacity(dev, x.sector, x.sectors))
			return "discard range [" + std::to_string(x.sector) + ", +" +
			       std::to_string(x.sectors) + ") past the capacity (" +
			       std::to_string(dev.capacity_sectors()) + " sectors)";
		sum += x.sectors;
	}
	if (sum != rq.sectors)
		return "discard ranges of " + std::to_string(sum) + " sectors in a request of " +
		       std::to_string(rq.sectors);
	return "";
}

std::unique_ptr<Device> build(const ParamFile &f, std::string *err)
{
	if (f.model == "ssd")
		return build<Ssd>(f, ssd_param_table(), ssd_check, err);
	if (f.model == "null")
		return build<NullDevice>(f, null_param_table(), null_check, err);
	if (f.model == "multipath")
		return build<Multipath>(f, multipath_param_table(), multipath_check, err);
	if (ThrottledParams p; throttled_preset(f.model, &p)) {
		if (!configure(f, throttled_param_table(), throttled_check, p, err))
			return nullptr;
		return std::make_unique<Throttled>(p, f.model);
	}
	return build<Hdd>(f, hdd_param_table(), hdd_check, err);
}

} // namespace

bool check_request(const Device &dev, const Request &rq, std::string *why)
{
	std::string r;
	if (dev.in_flight() >= dev.queue_depth())
		r = "queue full (" + std::to_string(dev.in_flight()) + " of " +
		    std::to_string(dev.queue_depth()) + " in flight)";
	else if (rq.flush && rq.sectors)
		r = "a flush carries no sectors (sectors " + std::to_string(rq.sectors) + ")";
	else if (rq.flush && rq.discard)
		r = "a flush that is a discard";
	else if (!rq.flush && !rq.sectors)
		r = rq.discard ? "a discard of 0 sectors" : "a read or write of 0 sectors";
	else if (rq.discard)
		r = check_ranges(dev, rq);
	else if (!rq.ranges.empty())
		r = "ranges on a request that is not a discard";
	else if (past_capacity(dev, rq.sector, rq.sectors))
		r = "sectors [" + std::to_string(rq.sector) + ", +" + std::to_string(rq.sectors) +
		    ") past the capacity (" + std::to_string(dev.capacity_sectors()) + " sectors)";
	if (r.empty() && rq.tag >= kMaxTags)
		r = "tag " + std::to_string(rq.tag) + " >= " + std::to_string(kMaxTags);
	if (r.empty())
		return true;
	if (why)
		*why = r;
	return false;
}

void check_submit(const Device &dev, const Request &rq, int64_t now, int64_t dev_now,
		  bool id_in_flight)
{
	std::string why;
	std::string what = dev.name() + ": request " + std::to_string(rq.id) + ": ";
	if (!check_request(dev, rq, &why))
		throw RejectedRequest(what + why);
	if (now < dev_now)
		throw RejectedRequest(what + "submitted at " + std::to_string(now) +
				      " ns, before the device time " + std::to_string(dev_now) +
				      " ns");
	if (id_in_flight)
		throw RejectedRequest(what + "id already in flight");
}

const std::vector<std::string> &model_names()
{
	static const std::vector<std::string> names = {"hdd",	     "ssd",	  "null",
						       "multipath",  "qemu-nvme", "qemu-sata",
						       "qemu-virtio"};
	return names;
}

std::string model_list(const std::string &or_more)
{
	const std::vector<std::string> &m = model_names();
	std::string out;
	for (size_t i = 0; i < m.size(); i++) {
		if (i)
			out += i + 1 == m.size() && or_more.empty() ? " or " : ", ";
		out += m[i];
	}
	return or_more.empty() ? out : out + " or " + or_more;
}

std::string default_params(const std::string &model)
{
	if (model == "hdd")
		return dump_params(model, hdd_param_table(), HddParams{});
	if (model == "ssd")
		return dump_params(model, ssd_param_table(), SsdParams{});
	if (model == "null")
		return dump_params(model, null_param_table(), NullParams{});
	if (model == "multipath")
		return dump_params(model, multipath_param_table(), MultipathParams{});
	if (ThrottledParams p; throttled_preset(model, &p))
		return dump_params(model, throttled_param_table(), p);
	return "";
}

std::unique_ptr<Device> make_device(const std::string &spec, std::string *err)
{
	std::string dummy;
	if (!err)
		err = &dummy;
	for (const std::string &m : model_names()) {
		if (spec == m) {
			ParamFile f;
			f.model = m;
			return build(f, err);
		}
	}
	if (spec.empty()) {
		*err = "no device given (" + model_list("a parameter file") + ")";
		return nullptr;
	}
	size_t colon = spec.find(':');
	if (colon != std::string::npos &&
	    std::count(model_names().begin(), model_names().end(), spec.substr(0, colon))) {
		ParamFile f;
		if (!parse_inline_spec(spec, &f, err))
			return nullptr;
		return build(f, err);
	}
	ParamFile f;
	if (!read_param_file(spec, &f, err))
		return nullptr;
	return build(f, err);
}

} // namespace efqsim::dev
