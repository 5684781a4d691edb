// SPDX-License-Identifier: GPL-2.0
// Cost of one scheduling cycle of the efq engine: select (the previous
// queue was expired, so this picks a new one down the hierarchy), dispatch
// one request, complete it, expire the queue (charge up the hierarchy,
// requeue).  Every queue stays backlogged.  Measured with 1, 100 and
// 10,000 queues, flat (every queue in the root group) and in a 3-level
// hierarchy (4 groups x 4 subgroups, queues below them).  Report only.
//
// The numbers include the userspace shims: the checking spinlock (owner
// tracking), lockdep assertions and the simulated clock.

#include <benchmark/benchmark.h>

#include <chrono>

#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include <linux/elevator-fq.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <sim/kernel.h>
#include <sim/clock.h>
#include <sim/blkcg.h>
#include "elevator.h"
#include "blk-cgroup.h"
}

namespace {

struct BenchQueue {
	struct efq_queue *ioq = nullptr;
	std::deque<struct request *> queued;
	std::vector<std::unique_ptr<struct request>> pool;
};

void free_sched_queue(struct efq_data *, void *) {}

const struct efq_sched_ops bench_ops = {
	.features = 0,
	.alloc_sched_queue = nullptr,
	.free_sched_queue = free_sched_queue,
	.active_queue_set = nullptr,
	.active_queue_reset = nullptr,
	.arm_slice_timer = nullptr,
	.should_preempt = nullptr,
	.close_cooperator = nullptr,
	.may_expire = nullptr,
};

class Device {
public:
	Device(int nqueues, bool hier)
	{
		static int init = sim_modules_init();
		if (init)
			std::abort();
		disk_->major = 8;
		disk_->first_minor = 0;
		disk_->minors = 16;
		q_->node = -1;
		if (sim_queue_init(q_.get(), disk_.get()))
			std::abort();
		efqd_ = efq_data_init(q_.get(), eq_.get(), &bench_ops, this);
		if (IS_ERR_OR_NULL(efqd_))
			std::abort();
		q_->elevator = eq_.get();

		std::vector<struct efq_group *> leaves;
		if (hier) {
			static int gen;
			gen++;
			for (int i = 0; i < 4; i++) {
				std::string n = "b" + std::to_string(gen) + "_" + std::to_string(i);
				struct blkcg *top = sim_blkcg_create(nullptr, n.c_str());
				cgroups_.push_back(top);
				efq_cgroup_set_weight(top, 200 + 200 * i);
				for (int j = 0; j < 4; j++) {
					std::string m = "s" + std::to_string(j);
					struct blkcg *sub = sim_blkcg_create(top, m.c_str());
					cgroups_.push_back(sub);
					efq_cgroup_set_weight(sub, 100 + 300 * j);
					struct blkcg_gq *blkg = sim_blkg_get(sub, q_.get());
					blkgs_.push_back(blkg);
					spin_lock_irq(&efqd_->lock);
					leaves.push_back(efq_group_of_blkg(efqd_, blkg));
					spin_unlock_irq(&efqd_->lock);
				}
			}
		} else {
			leaves.push_back(efqd_->root_group);
		}

		for (int i = 0; i < nqueues; i++) {
			queues_.push_back(std::make_unique<BenchQueue>());
			BenchQueue &bq = *queues_.back();
			bq.ioq = efq_queue_alloc(efqd_, GFP_KERNEL);
			efq_queue_init(efqd_, bq.ioq, i + 1, true, &bq);
			efq_queue_set_ioprio(bq.ioq, i % 8);
			spin_lock_irq(&efqd_->lock);
			efq_queue_set_group(bq.ioq, leaves[i % leaves.size()]);
			spin_unlock_irq(&efqd_->lock);
			for (int r = 0; r < 2; r++) {
				bq.pool.push_back(std::make_unique<struct request>());
				struct request *rq = bq.pool.back().get();
				rq->q = q_.get();
				rq->cmd_flags = REQ_OP_READ;
				rq->__data_len = 4096;
				rq->elv.priv[0] = &bq;
				Add(bq, rq);
			}
		}
	}

	~Device()
	{
		// drain, then free everything
		spin_lock_irq(&efqd_->lock);
		while (efqd_->nr_queued) {
			struct efq_queue *ioq = efq_select_queue(efqd_, true);
			BenchQueue *bq = static_cast<BenchQueue *>(ioq->sched_queue);
			struct request *rq = bq->queued.front();
			bq->queued.pop_front();
			efq_request_dispatched(efqd_, ioq, rq);
			efq_request_completed(efqd_, ioq, rq);
		}
		for (auto &bq : queues_) {
			efq_queue_exit(efqd_, bq->ioq);
			efq_put_queue(bq->ioq);
		}
		spin_unlock_irq(&efqd_->lock);
		efq_data_exit(efqd_);
		q_->elevator = nullptr;
		for (struct blkcg_gq *blkg : blkgs_)
			sim_blkg_put(blkg);
		for (auto it = cgroups_.rbegin(); it != cgroups_.rend(); ++it)
			sim_blkcg_destroy(*it);
		sim_queue_exit(q_.get());
		sim_quiesce();
	}

	// select + dispatch + complete + expire, the request going back to
	// its queue so that every queue stays backlogged
	void Cycle()
	{
		spin_lock_irq(&efqd_->lock);
		struct efq_queue *ioq = efq_select_queue(efqd_, false);
		BenchQueue *bq = static_cast<BenchQueue *>(ioq->sched_queue);
		struct request *rq = bq->queued.front();
		bq->queued.pop_front();
		efq_request_dispatched(efqd_, ioq, rq);
		efq_request_completed(efqd_, ioq, rq);
		Add(*bq, rq);
		efq_expire_active(efqd_, EFQ_EXPIRE_SCHED);
		spin_unlock_irq(&efqd_->lock);
	}

	unsigned long Expired() const { return efqd_->nr_expired[EFQ_EXPIRE_SCHED]; }

private:
	void Add(BenchQueue &bq, struct request *rq)
	{
		bool locked = spin_is_locked(&efqd_->lock);
		if (!locked)
			spin_lock_irq(&efqd_->lock);
		bq.queued.push_back(rq); // (the owner's reference keeps the queue)
		efq_request_add(efqd_, bq.ioq, rq);
		if (!locked)
			spin_unlock_irq(&efqd_->lock);
	}

	std::unique_ptr<struct request_queue> q_ = std::make_unique<struct request_queue>();
	std::unique_ptr<struct gendisk> disk_ = std::make_unique<struct gendisk>();
	std::unique_ptr<struct elevator_queue> eq_ = std::make_unique<struct elevator_queue>();
	struct efq_data *efqd_ = nullptr;
	std::vector<std::unique_ptr<BenchQueue>> queues_;
	std::vector<struct blkcg *> cgroups_;
	std::vector<struct blkcg_gq *> blkgs_;
};

// The clock advances once per 64 cycles (timing a clock step per cycle
// with PauseTiming() would cost more than the cycle itself).
void BM_Cycle(benchmark::State &state)
{
	const int nqueues = (int)state.range(0);
	const bool hier = state.range(1) != 0;
	Device dev(nqueues, hier);
	int n = 0;
	auto t0 = std::chrono::steady_clock::now();
	for (auto _ : state) {
		dev.Cycle();
		if (++n == 64) {
			n = 0;
			sim_clock_advance(1000000);
		}
	}
	double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0)
			    .count() /
		    (double)state.iterations();
	// the first case (1 queue, flat) is the baseline of this process's run
	static double baseline_ns = 0;
	if (nqueues == 1 && !hier)
		baseline_ns = ns;
	state.SetLabel(hier ? "3-level" : "flat");
	state.counters["expiries"] = (double)dev.Expired();
	if (baseline_ns > 0)
		state.counters["cost_vs_1_flat"] = ns / baseline_ns;
}

void Args(benchmark::internal::Benchmark *b)
{
	for (int hier = 0; hier <= 1; hier++)
		for (int n : {1, 100, 10000})
			b->Args({n, hier});
}

BENCHMARK(BM_Cycle)->Apply(Args)->ArgNames({"queues", "hier"});

} // namespace
