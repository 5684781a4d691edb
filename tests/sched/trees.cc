// SPDX-License-Identifier: GPL-2.0
// The engine's tree walk for the scheduler tests: the kernel's headers
// come after every C++ header (their min/max/swap macros), so it has a file
// of its own.
#include <string>

#include "harness.h"

#include "../common/tree_walk.h"

#include "elevator.h"

namespace efqtest {

std::string CheckTrees(Model &m)
{
	if (!m.efq_engine())
		return "";
	auto *efqd = static_cast<struct efq_data *>(m.queue()->elevator->elevator_data);
	spin_lock_irq(&efqd->lock);
	std::string e = efqcheck::TreeWalk(efqd).Check();
	spin_unlock_irq(&efqd->lock);
	return e;
}

} // namespace efqtest
