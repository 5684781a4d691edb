// SPDX-License-Identifier: GPL-2.0
// efqsim: execution contexts, tasks, printk, WARN/BUG, the lock checker,
// interrupt state, RCU read sides and module registration.
//
// Kind: kernel behaviour (printk, ratelimit, WARN/BUG, lockdep and might_sleep rules)
// Exceptions: contexts, tasks, sleep hook, module table are the sim's; request_module() stub

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/bug.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/time64.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <sim/kernel.h>
#include <sim/clock.h>
#include <sim/slab.h>
}

namespace {

enum class Kind { task, softirq, hardirq };

struct Frame {
	Kind kind = Kind::task;
	int spin_held = 0;
	int mutex_held = 0;
	int preempt = 0;
	int bh_off = 0;
	int rcu = 0;
	bool irqs_off = false;
};

std::vector<Frame> g_frames(1);
std::map<pid_t, std::unique_ptr<task_struct>> g_tasks;
task_struct *g_current;

unsigned long g_warn_count;
unsigned long g_warn_generation = 1;
std::string g_warn_last;
unsigned long g_lock_errors;
std::string g_lock_error_last;

sim_printk_hook_t g_printk_hook;
void *g_printk_hook_arg;

sim_sleep_hook_t g_sleep_hook;
void *g_sleep_hook_arg;
bool g_in_sleep_hook;

// Bits of lockdep_map::usage.
constexpr unsigned char USED_IN_HARDIRQ = 1, HARDIRQ_ON = 2, USED_IN_SOFTIRQ = 4, SOFTIRQ_ON = 8;

Frame &top()
{
	return g_frames.back();
}

void reset_task(task_struct *t, pid_t pid, const char *comm)
{
	char name[sizeof(t->comm)];

	// @comm may be t->comm itself: copy it before clearing the task
	std::snprintf(name, sizeof(name), "%s", comm);
	std::memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = pid;
	std::memcpy(t->comm, name, sizeof(name));
	t->policy = SCHED_NORMAL;
	t->static_prio = t->prio = t->normal_prio = DEFAULT_PRIO;
}

task_struct *task_for(pid_t pid, const char *comm)
{
	auto &slot = g_tasks[pid];
	if (!slot) {
		slot = std::make_unique<task_struct>();
		reset_task(slot.get(), pid, comm ? comm : "task");
	} else if (comm && std::strncmp(slot->comm, comm, sizeof(slot->comm) - 1) != 0) {
		// (the same name, as truncated, is not written again: the
		// simulator switches tasks for every request)
		std::snprintf(slot->comm, sizeof(slot->comm), "%s", comm);
	}
	return slot.get();
}

task_struct *cur()
{
	if (!g_current)
		g_current = task_for(1, "sim");
	return g_current;
}

std::string ctx_name(int id)
{
	if (id == SIM_CTX_HARDIRQ)
		return "hardirq context";
	if (id == SIM_CTX_SOFTIRQ)
		return "softirq context";
	auto it = g_tasks.find(id);
	return sim::format("task %d (%s)", id, it != g_tasks.end() ? it->second->comm : "?");
}

std::string lock_name(const lockdep_map *map)
{
	return map && map->name ? map->name : "lock";
}

std::string holder(const lockdep_map *map)
{
	return sim::format("%s at %s:%d", ctx_name(map->owner).c_str(),
			   map->held_file ? map->held_file : "?", map->held_line);
}

void print_block(const std::string &text)
{
	std::fputs(text.c_str(), stderr);
	if (text.empty() || text.back() != '\n')
		std::fputc('\n', stderr);
	std::fflush(stderr);
}

// The irq-safety rule of lockdep: a lock taken in an interrupt context must
// never be taken with that interrupt enabled.
void check_irq_usage(lockdep_map *map, const char *file, int line)
{
	const Frame &f = top();

	if (f.kind == Kind::hardirq)
		map->usage |= USED_IN_HARDIRQ;
	else if (!f.irqs_off)
		map->usage |= HARDIRQ_ON;
	if (f.kind == Kind::softirq)
		map->usage |= USED_IN_SOFTIRQ;
	else if (f.kind == Kind::task && !f.irqs_off && f.bh_off == 0)
		map->usage |= SOFTIRQ_ON;

	if (map->reported)
		return;
	const char *irq = nullptr;
	if ((map->usage & USED_IN_HARDIRQ) && (map->usage & HARDIRQ_ON))
		irq = "hardirq";
	else if ((map->usage & USED_IN_SOFTIRQ) && (map->usage & SOFTIRQ_ON))
		irq = "softirq";
	if (irq) {
		map->reported = 1;
		sim::lock_error(
			file, line,
			sim::format("inconsistent lock state: %s is taken in %s context and "
				    "also with %ss enabled",
				    lock_name(map).c_str(), irq, irq));
	}
}

} // namespace

namespace sim {

std::string vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = std::vsnprintf(nullptr, 0, fmt, ap2);
	va_end(ap2);
	std::string s(n > 0 ? n : 0, '\0');
	if (n > 0)
		std::vsnprintf(s.data(), s.size() + 1, fmt, ap);
	return s;
}

std::string format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

void warn(const char *file, int line, const std::string &msg)
{
	g_warn_count++;
	g_warn_last = format("%s:%d: %s", file, line, msg.c_str());
	print_block("WARNING: " + g_warn_last);
}

void lock_error(const char *file, int line, const std::string &msg)
{
	g_lock_errors++;
	g_lock_error_last = format("%s:%d: %s", file, line, msg.c_str());
	g_warn_count++;
	g_warn_last = g_lock_error_last;
	print_block("BUG: lock error: " + g_lock_error_last);
}

bool require_top_level(const char *what)
{
	const Frame &f = top();
	if (g_frames.size() == 1 && f.spin_held == 0 && !f.irqs_off && f.bh_off == 0 &&
	    f.rcu == 0 && f.preempt == 0)
		return true;
	lock_error("<sim>", 0,
		   format("%s called from %s with %d spinlock(s) held, irqs %s, rcu depth %d", what,
			  ctx_name(sim_ctx_id()).c_str(), f.spin_held, f.irqs_off ? "off" : "on",
			  f.rcu));
	return false;
}

} // namespace sim

extern "C" {

int __sim_export_anchor;
int __sim_modinfo_anchor;
int sim_printk_level = 5;

/* ---- tasks and contexts ---- */

struct task_struct *sim_get_current(void)
{
	return cur();
}

void sim_set_current(pid_t pid, const char *comm)
{
	if (g_frames.size() > 1) {
		sim::lock_error("<sim>", 0, "sim_set_current() called in interrupt context");
		return;
	}
	const Frame &f = top();
	if (pid != cur()->pid && (f.spin_held || f.irqs_off || f.rcu || f.preempt || f.bh_off))
		sim::lock_error(
			"<sim>", 0,
			sim::format("task switch from %s while atomic (%d spinlock(s) held)",
				    ctx_name(cur()->pid).c_str(), f.spin_held));
	g_current = task_for(pid, comm);
}

void sim_current_set_nice(int nice)
{
	cur()->static_prio = cur()->normal_prio = NICE_TO_PRIO(nice);
	if (!rt_prio(cur()->prio))
		cur()->prio = cur()->static_prio;
}

void sim_current_set_policy(unsigned int policy)
{
	cur()->policy = policy;
	cur()->prio =
		(policy == SCHED_FIFO || policy == SCHED_RR) ? MAX_RT_PRIO - 1 : cur()->static_prio;
}

void sim_current_set_io_css(struct cgroup_subsys_state *css)
{
	cur()->sim_io_css = css;
}

void sim_irq_enter(bool hard)
{
	Frame f;
	f.kind = hard ? Kind::hardirq : Kind::softirq;
	f.irqs_off = hard;
	g_frames.push_back(f);
}

void sim_irq_exit(void)
{
	if (g_frames.size() == 1) {
		sim::lock_error("<sim>", 0, "sim_irq_exit() without sim_irq_enter()");
		return;
	}
	const Frame &f = top();
	const char *name = f.kind == Kind::hardirq ? "hardirq" : "softirq";
	if (f.spin_held || f.mutex_held)
		sim::lock_error("<sim>", 0,
				sim::format("%s handler returned with %d lock(s) held", name,
					    f.spin_held + f.mutex_held));
	if (f.rcu)
		sim::lock_error("<sim>", 0,
				sim::format("%s handler returned inside rcu_read_lock()", name));
	if (f.bh_off || f.preempt)
		sim::lock_error("<sim>", 0,
				sim::format("%s handler returned with bh/preemption disabled",
					    name));
	if (f.kind == Kind::softirq && f.irqs_off)
		sim::lock_error("<sim>", 0, "softirq handler returned with interrupts disabled");
	g_frames.pop_back();
}

int sim_ctx_id(void)
{
	switch (top().kind) {
	case Kind::hardirq:
		return SIM_CTX_HARDIRQ;
	case Kind::softirq:
		return SIM_CTX_SOFTIRQ;
	default:
		return cur()->pid;
	}
}

bool sim_in_hardirq(void)
{
	for (const Frame &f : g_frames)
		if (f.kind == Kind::hardirq)
			return true;
	return false;
}

bool sim_in_serving_softirq(void)
{
	return top().kind == Kind::softirq;
}

bool sim_in_softirq(void)
{
	return sim_in_serving_softirq() || top().bh_off > 0;
}

bool sim_in_task(void)
{
	return top().kind == Kind::task;
}

void sim_preempt_count_add(int val)
{
	top().preempt += val;
	if (top().preempt < 0) {
		top().preempt = 0;
		sim::lock_error("<sim>", 0, "preempt_enable() without preempt_disable()");
	}
}

int sim_preempt_count(void)
{
	const Frame &f = top();
	return f.preempt + f.spin_held + f.bh_off + (f.kind != Kind::task ? 1 : 0);
}

void sim_might_sleep(const char *file, int line)
{
	const Frame &f = top();
	if (f.kind != Kind::task || f.irqs_off || f.spin_held || f.preempt || f.bh_off || f.rcu) {
		sim::lock_error(file, line,
				sim::format("sleeping function called from invalid context: "
					    "in_atomic(): %d, irqs_disabled(): %d, rcu depth: %d, "
					    "in %s",
					    sim_preempt_count() != 0, f.irqs_off, f.rcu,
					    ctx_name(sim_ctx_id()).c_str()));
		return;
	}
	if (g_sleep_hook && !g_in_sleep_hook && g_frames.size() == 1 && f.mutex_held == 0) {
		g_in_sleep_hook = true;
		g_sleep_hook(g_sleep_hook_arg);
		g_in_sleep_hook = false;
	}
}

void sim_set_sleep_hook(sim_sleep_hook_t fn, void *arg)
{
	g_sleep_hook = fn;
	g_sleep_hook_arg = arg;
}

/* ---- interrupt state ---- */

unsigned long sim_local_irq_save(const char * /*file*/, int /*line*/)
{
	unsigned long flags = top().irqs_off;
	top().irqs_off = true;
	return flags;
}

void sim_local_irq_restore(unsigned long flags, const char *file, int line)
{
	if (!flags && top().kind == Kind::hardirq) {
		sim::lock_error(file, line,
				"local_irq_restore() enables interrupts in hardirq context");
		return;
	}
	top().irqs_off = flags != 0;
}

void sim_local_irq_disable(const char * /*file*/, int /*line*/)
{
	top().irqs_off = true;
}

void sim_local_irq_enable(const char *file, int line)
{
	if (top().kind == Kind::hardirq) {
		sim::lock_error(file, line, "interrupts enabled in hardirq context");
		return;
	}
	top().irqs_off = false;
}

bool sim_irqs_disabled(void)
{
	return top().irqs_off;
}

void sim_local_bh_disable(const char * /*file*/, int /*line*/)
{
	top().bh_off++;
}

void sim_local_bh_enable(const char *file, int line)
{
	if (top().bh_off == 0) {
		sim::lock_error(file, line, "local_bh_enable() without local_bh_disable()");
		return;
	}
	top().bh_off--;
}

/* ---- locks ---- */

void sim_lock_init(struct lockdep_map *map, const char *name, bool sleeping)
{
	std::memset(map, 0, sizeof(*map));
	map->name = name;
	map->sleeping = sleeping;
}

void sim_lock_acquire(struct lockdep_map *map, const char *file, int line)
{
	int me = sim_ctx_id();

	if (map->held) {
		if (map->owner == me)
			sim::lock_error(file, line,
					sim::format("recursive locking of %s (already held by %s)",
						    lock_name(map).c_str(), holder(map).c_str()));
		else
			sim::lock_error(file, line,
					sim::format("deadlock: %s wants %s, held by %s",
						    ctx_name(me).c_str(), lock_name(map).c_str(),
						    holder(map).c_str()));
		return;
	}
	if (map->sleeping) {
		if (top().kind != Kind::task)
			sim::lock_error(file, line,
					sim::format("mutex %s taken in interrupt context",
						    lock_name(map).c_str()));
		top().mutex_held++;
	} else {
		check_irq_usage(map, file, line);
		top().spin_held++;
	}
	map->held = 1;
	map->owner = me;
	map->frame = (int)g_frames.size() - 1;
	map->held_file = file;
	map->held_line = line;
}

int sim_lock_tryacquire(struct lockdep_map *map, const char *file, int line)
{
	if (map->held)
		return 0;
	sim_lock_acquire(map, file, line);
	return 1;
}

void sim_lock_release(struct lockdep_map *map, const char *file, int line)
{
	if (!map->held) {
		sim::lock_error(file, line,
				sim::format("unlock of %s, which is not held",
					    lock_name(map).c_str()));
		return;
	}
	int me = sim_ctx_id();
	if (map->owner != me)
		sim::lock_error(file, line,
				sim::format("%s unlocks %s, held by %s", ctx_name(me).c_str(),
					    lock_name(map).c_str(), holder(map).c_str()));
	if (map->frame < (int)g_frames.size()) {
		Frame &f = g_frames[map->frame];
		int &count = map->sleeping ? f.mutex_held : f.spin_held;
		if (count > 0)
			count--;
	}
	map->held = 0;
}

bool sim_lock_is_locked(const struct lockdep_map *map)
{
	return map->held;
}

void sim_lock_assert_locked(const struct lockdep_map *map, const char *file, int line)
{
	if (!map->held)
		sim::lock_error(file, line,
				sim::format("assert_spin_locked(%s) failed: not locked",
					    lock_name(map).c_str()));
}

bool sim_lock_held_by_current(const struct lockdep_map *map)
{
	return map->held && map->owner == sim_ctx_id();
}

void sim_lockdep_assert(bool ok, const char *what, const struct lockdep_map *map, const char *file,
			int line)
{
	if (ok)
		return;
	std::string msg = sim::format("%s failed in %s", what, ctx_name(sim_ctx_id()).c_str());
	if (map)
		msg += map->held ? " (held by " + holder(map) + ")" : " (not held)";
	sim::lock_error(file, line, msg);
}

/* ---- RCU read side ---- */

void sim_rcu_read_lock(void)
{
	top().rcu++;
}

void sim_rcu_read_unlock(const char *file, int line)
{
	if (top().rcu == 0) {
		sim::lock_error(file, line, "rcu_read_unlock() without rcu_read_lock()");
		return;
	}
	top().rcu--;
}

bool sim_rcu_read_lock_held(void)
{
	for (const Frame &f : g_frames)
		if (f.rcu)
			return true;
	return false;
}

/* ---- printk, WARN, BUG ---- */

int vprintk(const char *fmt, va_list args)
{
	int level = LOGLEVEL_WARNING;
	bool cont = false;

	while (fmt[0] == KERN_SOH_ASCII && fmt[1]) {
		if (fmt[1] >= '0' && fmt[1] <= '7')
			level = fmt[1] - '0';
		else if (fmt[1] == 'c')
			cont = true;
		fmt += 2;
	}
	std::string msg = sim::vformat(fmt, args);
	if (g_printk_hook)
		g_printk_hook(level, msg.c_str(), g_printk_hook_arg);
	if (level < sim_printk_level) {
		if (!cont) {
			s64 now = sim_clock_now();
			std::fprintf(stderr, "[%5lld.%06lld] ", now / NSEC_PER_SEC,
				     (now % NSEC_PER_SEC) / NSEC_PER_USEC);
		}
		std::fputs(msg.c_str(), stderr);
	}
	return (int)msg.size();
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void sim_printk_set_hook(sim_printk_hook_t hook, void *arg)
{
	g_printk_hook = hook;
	g_printk_hook_arg = arg;
}

void sim_warn(const char *file, int line, const char *func, unsigned long *once, const char *fmt,
	      ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = sim::vformat(fmt, ap);
	va_end(ap);
	while (!msg.empty() && msg.back() == '\n')
		msg.pop_back();

	g_warn_count++;
	g_warn_last = sim::format("%s:%d: %s", file, line, msg.c_str());
	if (once) {
		if (*once == g_warn_generation)
			return;
		*once = g_warn_generation;
	}
	print_block(sim::format("WARNING: %s:%d %s(): %s", file, line, func, msg.c_str()));
	if (g_printk_hook)
		g_printk_hook(LOGLEVEL_WARNING, g_warn_last.c_str(), g_printk_hook_arg);
}

void sim_bug(const char *file, int line, const char *func)
{
	print_block(sim::format("kernel BUG at %s:%d %s()!", file, line, func));
	std::abort();
}

int sim_ratelimit(struct sim_ratelimit *rs, const char *func)
{
	const unsigned long interval = 5 * HZ;
	const int burst = 10;

	if (rs->generation != g_warn_generation) {
		*rs = {};
		rs->generation = g_warn_generation;
	}
	if (!rs->begin)
		rs->begin = jiffies;
	if (time_is_before_jiffies(rs->begin + interval)) {
		if (rs->missed)
			printk(KERN_WARNING "%s: %d callbacks suppressed\n", func, rs->missed);
		rs->begin = jiffies;
		rs->printed = 0;
		rs->missed = 0;
	}
	if (rs->printed < burst) {
		rs->printed++;
		return 1;
	}
	rs->missed++;
	return 0;
}

unsigned long sim_warn_count(void)
{
	return g_warn_count;
}

const char *sim_warn_last(void)
{
	return g_warn_last.c_str();
}

void sim_warn_reset(void)
{
	g_warn_count = 0;
	g_warn_last.clear();
	g_warn_generation++;
}

unsigned long sim_lock_errors(void)
{
	return g_lock_errors;
}

const char *sim_lock_error_last(void)
{
	return g_lock_error_last.c_str();
}

void sim_lock_errors_reset(void)
{
	g_lock_errors = 0;
	g_lock_error_last.clear();
}

/* ---- modules ---- */

} // extern "C": the module table is C++ (clang: -Wreturn-type-c-linkage)

namespace {
struct Module {
	std::string file;
	initcall_t init = nullptr;
	exitcall_t exit = nullptr;
	std::string init_name;
	bool loaded = false;
};

std::vector<Module> &modules()
{
	static std::vector<Module> mods;
	return mods;
}

Module &module_for(const char *file)
{
	for (Module &m : modules())
		if (m.file == file)
			return m;
	Module m;
	m.file = file;
	modules().push_back(m);
	return modules().back();
}
} // namespace

extern "C" {

void sim_module_register_init(initcall_t fn, const char *name, const char *file)
{
	Module &m = module_for(file);
	m.init = fn;
	m.init_name = name;
}

void sim_module_register_exit(exitcall_t fn, const char * /*name*/, const char *file)
{
	module_for(file).exit = fn;
}

int sim_modules_init(void)
{
	for (Module &m : modules()) {
		if (m.loaded)
			continue;
		int ret = m.init ? m.init() : 0;
		if (ret) {
			printk(KERN_ERR "sim: %s (%s) failed: %d\n", m.init_name.c_str(),
			       m.file.c_str(), ret);
			return ret;
		}
		m.loaded = true;
	}
	return 0;
}

void sim_modules_exit(void)
{
	auto &mods = modules();
	for (auto it = mods.rbegin(); it != mods.rend(); ++it) {
		if (!it->loaded)
			continue;
		if (it->exit)
			it->exit();
		it->loaded = false;
	}
}

int sim_modules_count(void)
{
	int n = 0;
	for (const Module &m : modules())
		n += m.init != nullptr;
	return n;
}

int __request_module(bool /*wait*/, const char * /*fmt*/, ...)
{
	return -ENOSYS;
}

/* ---- reset ---- */

void sim_quiesce(void)
{
	if (sim::require_top_level("sim_quiesce()"))
		sim::run_deferred();
}

void sim_reset(void)
{
	g_frames.assign(1, Frame{});
	for (auto &kv : g_tasks)
		reset_task(kv.second.get(), kv.first, kv.second->comm);
	g_current = task_for(1, "sim");
	// Finish what the last test left queued (frees, releases), then drop
	// whatever is left.
	sim::run_deferred();
	sim::rcu_reset();
	sim::work_reset();
	sim::clock_reset();
	sim::slab_reset();
	sim_printk_set_hook(nullptr, nullptr);
	sim_set_sleep_hook(nullptr, nullptr);
	sim_warn_reset();
	sim_lock_errors_reset();
}

} // extern "C"
