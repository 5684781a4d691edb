// SPDX-License-Identifier: GPL-2.0
#include "run/drive.h"

#include <algorithm>
#include <utility>

#include "blk/model.h"
#include "run/run.h"

namespace efqsim::run {
namespace {

constexpr int64_t kSec = 1'000'000'000;

} // namespace

Drive::Drive(blk::Model &model, int64_t start, std::function<void(int64_t seconds)> progress)
    : model_(model), start_(start), progress_(std::move(progress))
{
}

bool Drive::run(const std::function<bool()> &finished, const std::function<int64_t()> &deadline)
{
	for (;;) {
		if (finished())
			return true;
		const int64_t limit = deadline();
		if (model_.now() >= limit)
			return false;
		model_.run_until(std::min(model_.now() + kSec, limit));
		const int64_t shown = (model_.now() - start_) / kSec;
		if (progress_ && shown != last_shown_) {
			progress_(shown);
			last_shown_ = shown;
		}
	}
}

bool Drive::drain()
{
	return model_.drain(model_.now() + 3600 * kSec);
}

bool Drive::abandon()
{
	model_.cancel_waiters();
	return model_.drain(model_.now() + kMaxSimNs);
}

} // namespace efqsim::run
