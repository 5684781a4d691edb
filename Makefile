# SPDX-License-Identifier: GPL-2.0
#
# efq: top-level entry points.  `make help` lists them.
#
# Every target that needs a Debian package runs scripts/setup first (fast when
# everything is installed), so a fresh Debian 12 machine needs no manual step.
# Build products go to build/ (git-ignored):
#   build/test         CMake, Debug -O1, ASan+UBSan: engine, shims, unit tests
#   build/bench        CMake, Release -O2: benchmarks
#   build/fuzz         CMake, clang, libFuzzer+ASan+UBSan: efqsim's fuzzers
#   build/kmod         Kbuild: the kernel modules for 6.1 (symlinks to block/*.c)
#   build/kmod-6.12    the same for 6.12 (make module KVER=6.12); build/kmod-7.2,
#                      build/kmod-7.3 for 7.2 and 7.3
#   build/kernel-src   private block headers + checkpatch.pl, and efqsim's mq-deadline.c
#                      (scripts/kernel-src); build/kernel-src-6.12: 6.12's
#   build/debian13     the Debian 13 chroot the 6.12 modules build in (scripts/debian13)
#   build/check        logs of the last `make check`
#   build/patches-6.12 scratch repos of `make patches` (series in out/patches-6.12,
#   build/patches-6.1  out/patches-6.1, out/patches-7.2; build/patches-7.2)
#   build/intree-6.12  linux-source-6.12, -6.1 and -7.2 trees + O= builds of
#   build/intree-6.1   `make intree-check` (build/intree-7.2)
#   build/vmtest-patched-6.12  the kernels and initramfs of `make vmtest-patched`
#   build/vmtest-patched       (the 6.1 one; build/vmtest-patched-7.2 7.2's;
#                      -iocost beside each: with iocost)
#   build/kbench       the kernel image, initramfs and console of `make kbench`

SHELL := /bin/bash
# Top-level steps run one after another (readable output); each step builds
# with $(JOBS) jobs itself.
.NOTPARALLEL:
JOBS ?= 2
MAKEFLAGS += --no-print-directory

TEST_DIR  := build/test
BENCH_DIR := build/bench
SETUP     := scripts/setup

.PHONY: all help setup build unit test test-full check module vmtest vmtest-6.12 vmtest-7.2 vmtest-disks vmtest-systemd vmtest-systemd-short vmtest-systemd-v1 vmtest-6.1-core vmtest-6.1-rest vmtest-integrity kbench bench format format-check clean distclean run
.PHONY: fuzz-build fuzz fuzz-short soak fio-examples

all: build

help:
	@echo "make run           the demo: the cover letter's Tests 2 and 3 in efqsim, tables + plots in out/"
	@echo "make test          setup, build, unit tests, fuzz-short, format-check, check, vmtest-6.12,"
	@echo "                   vmtest-systemd-short, vmtest-6.1-core, blktests-quick, intree-check-6.12 (what CI runs; ~73 minutes)"
	@echo "make test-full     make test, then vmtest-6.1-rest, vmtest-7.2, intree-check (6.1 and 7.2 too), vmtest-patched"
	@echo "                   (6.12, 6.1 and 7.2), vmtest-systemd-v1, vmtest-disks"
	@echo "make setup         install the Debian packages the project needs"
	@echo "make build         configure and build $(TEST_DIR) (sanitizers on)"
	@echo "make unit          build, then run the test suites with ctest"
	@echo "make check         checkpatch --strict, kernel-doc, Kbuild module build with W=1 and sparse, DKMS:"
	@echo "                   for 6.1, 6.12, 7.2 and 7.3 (in the Debian 13 chroot; KERNELS=6.1 for one);"
	@echo "                   scripts/kapi-drift: the kernel API the modules use, against kernel/kapi-baseline.txt"
	@echo "make module        build the kernel modules for 6.1 into build/kmod/; KVER=6.12 (or a full"
	@echo "                   6.12 KVER): for Debian 13's 6.12 into build/kmod-6.12/, in build/debian13;"
	@echo "                   KVER=7.2 or 7.3: trixie-backports' kernels into build/kmod-7.2/, build/kmod-7.3/"
	@echo "make vmtest        boot Debian's kernel under qemu (TCG) with the modules: scripts/vm/vmtest"
	@echo "                   (45-integrity's fast subset: 8 MiB, one item per workload class and scheduler);"
	@echo "                   KVER=6.12: Debian 13's 6.12 image with build/kmod-6.12, files in build/vm-6.12/"
	@echo "                   KVER=7.2 (7.3): trixie-backports' kernel with build/kmod-7.2, files in build/vm-7.2/"
	@echo "make vmtest-6.12   make vmtest KVER=6.12 (part of make test); VMTEST_ONLY=40-,45- runs those files only"
	@echo "make vmtest-7.2    make vmtest KVER=7.2: the whole suite on Debian's 7.2 (part of make test-full)"
	@echo "make vmtest-systemd  a Debian 13 root with systemd as PID 1 on 6.12: IOWeight=, IODeviceWeight=, runc's"
	@echo "                   blockIO.weight reaching efq through efq-weightd (not in make test; VMTEST_ONLY as above)"
	@echo "make vmtest-systemd-v1  a Debian 12 root with systemd 252 as PID 1 on 6.1 on cgroup v1: runc's blockIO.weight"
	@echo "                   (cgroupfs and systemd drivers) and IOWeight= written to blkio.weight (part of make test-full)"
	@echo "make vmtest-disks  weights and fsync'd commits on qemu's NVMe, SATA and virtio disks, every"
	@echo "                   scheduler (35-disks' whole matrix, 6.1; part of make test-full)"
	@echo "make vmtest-6.1-core  6.1's files 05- 10- 20- 25- 47- 48- 50- (make test); vmtest-6.1-rest: the others (test-full)"
	@echo "make vmtest-integrity  45-integrity's full matrix alone (both modes, all variants; ~45 min) on"
	@echo "                   Debian's kernel; INTEGRITY_KERNEL=patched: on make vmtest-patched's kernel"
	@echo "make kbench        the kernel benchmark: each scheduler's IOPS against none's, cost per request,"
	@echo "                   interleaved rounds (KBENCH=5x3: rounds x seconds, :libaio for fio's libaio) in the VM;"
	@echo "                   ~16 min on a busy 2-core host; results in Documentation/kernel/performance.rst"
	@echo "make blktests BLKTESTS=DIR  blktests' block group in the VM: control, listed, each efq scheduler as"
	@echo "                   the default (BLKTESTS_MODES=control,listed,cfq,...): scripts/vm/blktests"
	@echo "make blktests-quick  7 block tests, control, cfq, deadline-fq and as as the default (part of make test;"
	@echo "                   BLKTESTS_QUICK=DIR, default $(BLKTESTS_QUICK)); both on Debian 12's 6.1, KVER=7.2 (6.12,"
	@echo "                   7.3): that kernel with build/kmod-7.2, files in build/blktests-7.2/ (blktests-quick-7.2/)"
	@echo "make patches       the patch series for a kernel tree: out/patches-6.12/, out/patches-6.1/, out/patches-7.2/"
	@echo "make intree-check  apply each series to its linux-source (6.12, 6.1, 7.2) and build block/ (=y, =m);"
	@echo "                   intree-check-6.12: 6.12's only (part of make test)"
	@echo "make vmtest-patched  build patched 6.12, 6.1 and 7.2 kernels, without and with iocost, run the VM"
	@echo "                   suite on each with efq built in (KVER=6.12, 6.1 or 7.2: one; part of make test-full)"
	@echo "make vmtest-debug  the same on a KASAN + lockdep + kmemleak + fault-injection kernel (not in make test)"
	@echo "make fuzz          build $(FUZZ_DIR) (clang, libFuzzer) and fuzz each of efqsim's inputs for"
	@echo "                   FUZZ_SECONDS (default 60) seconds: job files, devices, blktrace, blkparse, the"
	@echo "                   command line, a bounded run"
	@echo "make fuzz-short    the same, 20 s each (part of make test)"
	@echo "make soak          SEEDS (default 5000) random scenarios of the real schedulers from SOAK_FIRST"
	@echo "                   (default 1), every checker on; make unit runs seeds 1-512"
	@echo "make bench         build $(BENCH_DIR) (Release) and run the benchmarks"
	@echo "make fio-examples  build, then run Debian's fio-examples job files through efqsim (fetched"
	@echo "                   with apt-get download into build/); prints how many run and why the rest fail"
	@echo "make install-weightd  build efq-weightd (Release) and install it and its systemd unit"
	@echo "                   into [DESTDIR]$(SBINDIR) and [DESTDIR]$(UNITDIR) (Documentation/block/efq-weightd.rst)"
	@echo "make deb           the efq-dkms and efq-weightd packages in build/deb/ (dpkg-buildpackage)"
	@echo "make deb-check     install them with apt in a copy of the Debian 13 chroot (6.12 and 7.2, then 7.3"
	@echo "                   headers: DKMS builds for each), remove them; make install/uninstall there too"
	@echo "make install       without apt: the module source into /usr/src/efq-<version>, built and installed by"
	@echo "                   dkms for every installed kernel, or into /lib/modules/<kernel>/updates/efq/; efq-weightd"
	@echo "make uninstall     remove what make install installed"
	@echo "make format        clang-format -i the C++ files"
	@echo "make format-check  fail if a C++ file is not clang-formatted"
	@echo "make clean         remove build products (keeps build/kernel-src)"
	@echo "make distclean     remove build/ entirely"

setup:
	@$(SETUP)

# --- userspace: engine + shims + unit tests --------------------------------
build: setup
	@cmake -S . -B $(TEST_DIR) -DCMAKE_BUILD_TYPE=Debug -DEFQ_SANITIZE=ON >/dev/null
	cmake --build $(TEST_DIR) -j$(JOBS)

# One CTest test per TEST(); only failures (with their output) and the totals
# are printed.
unit: build
	@set -o pipefail; ctest --test-dir $(TEST_DIR) --output-on-failure -j$(JOBS) | \
		grep -vE '^Internal ctest changing|^ +Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed +[0-9.]+ sec$$'

# make test: what CI runs (.ci/run), about 75 minutes on a fresh 2-core
# machine (README: the parts' times): the whole VM suite on Debian 13's
# 6.12 with the modules, 6.1's core files (vmtest-6.1-core) and
# blktests-quick on Debian 12's 6.1, the three patch series generated
# and checked, the 6.12 one applied and built in-tree.  make test-full
# adds the rest of 6.1's VM suite, the whole suite on 7.2, the 6.1 and
# 7.2 series' in-tree builds and the VM suite on a patched 6.12, 6.1 and
# 7.2 kernel with efq built in, each without and with iocost
# (vmtest-patched: six kernel builds and six more VM runs, about two
# hours more), and the systemd guest on
# Debian 12 and cgroup v1 (vmtest-systemd-v1, about 9 minutes), and the
# whole matrix of weights and fsync'd commits on qemu's NVMe, SATA and
# virtio disks (vmtest-disks).
test: setup build unit fuzz-short format-check check vmtest-6.12 vmtest-systemd-short vmtest-6.1-core blktests-quick intree-check-6.12

test-full: test vmtest-6.1-rest vmtest-7.2 intree-check vmtest-patched vmtest-systemd-v1 vmtest-disks

# --- fuzzing: libFuzzer harnesses of efqsim's inputs (tests/fuzz) -------------
# build/fuzz: clang with -fsanitize=fuzzer,address,undefined (EFQ_FUZZ);
# scripts/fuzz generates the seeds and dictionary, runs each harness for
# FUZZ_SECONDS and fails on any crash, hang, leak or sanitizer report
# (Documentation/sim/efqsim.rst, "Fuzzing").  fuzz-short: 20 s each from
# the seeds alone (--fresh), about 2.5 minutes in all (part of make test).
FUZZ_DIR := build/fuzz
FUZZ_SECONDS ?= 60
fuzz-build: setup
	@cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=Debug -DEFQ_SANITIZE=ON -DEFQ_FUZZ=ON \
		-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	cmake --build $(FUZZ_DIR) -j$(JOBS)

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz

fuzz-short: fuzz-build
	@FUZZ_SECONDS=20 scripts/fuzz --fresh

# --- soak: random scenarios of the real schedulers (tests/soak) --------------
# One seed makes one case: a scheduler (efq's four, Linux's mq-deadline)
# with random tunables, a device, a cgroup tree of 1-3 levels with weights
# and classes, fio jobs and submitters of the test's own, and weight, class,
# rule and tunable changes, scheduler switches and cgroup removals while it
# runs; each runs on the block layer model with every checker on, under
# ASan and UBSan (Documentation/kernel/reliability.rst, "The soak").  make
# unit runs seeds 1-512; make soak runs SEEDS seeds from SOAK_FIRST in
# $(JOBS) processes (logs in build/soak/); a failing seed prints its case
# and the line that replays it.
SEEDS ?= 5000
SOAK_FIRST ?= 1
soak: build
	@mkdir -p build/soak; pids=(); start=$$SECONDS; \
	for i in $$(seq 0 $$(($(JOBS) - 1))); do \
		f=$$(($(SOAK_FIRST) + i * $(SEEDS) / $(JOBS))); \
		n=$$(((i + 1) * $(SEEDS) / $(JOBS) - i * $(SEEDS) / $(JOBS))); \
		EFQ_SOAK_FIRST=$$f EFQ_SOAK_SEEDS=$$n $(TEST_DIR)/efq_soak_tests \
			--gtest_filter=Soak.Seeds >build/soak/$$i.log 2>&1 & pids+=($$!); \
	done; \
	rc=0; for i in $${!pids[@]}; do \
		wait $${pids[$$i]} || { rc=1; cat build/soak/$$i.log; }; \
	done; \
	if [ $$rc = 0 ]; then \
		echo "soak: $(SEEDS) seeds from $(SOAK_FIRST) passed in $$((SECONDS - start)) s"; \
	fi; exit $$rc

# Debian's fio-examples through efqsim (not part of make test): the count is
# in Documentation/sim/workloads.rst.
fio-examples: build
	@scripts/fio-examples $(TEST_DIR)/efqsim

# --- kernel: style, sparse and the module build ----------------------------
check: setup
	@JOBS=$(JOBS) scripts/check

# KVER=6.12 (or 6.12.<n>+deb13-amd64) builds for Debian 13's kernel in the
# chroot of scripts/debian13 (made on first use: about 7 minutes); KVER=7.2
# or 7.3 for trixie-backports' kernels, in the same chroot (their packages
# added on first use: about a minute).
module: setup
	@$(MAKE) --no-print-directory -C kernel -j$(JOBS) $(if $(KVER),KVER=$(KVER))

# --- real kernel: Debian's image under qemu TCG with our modules --------------
# (efqsim --list-tunables gives the expected tunables: needs build)
# KVER=6.12 (or its full name): Debian 13's image with build/kmod-6.12,
# files in build/vm-6.12/.
# VMTEST_ONLY=PATTERN,...: only the guest test files whose names contain
# one of the patterns (scripts/vm/vmtest --only).
vmtest: setup build module
	@scripts/vm/vmtest $(if $(KVER),--series $(shell echo $(KVER) | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')) \
		$(if $(VMTEST_ONLY),--only $(VMTEST_ONLY))

# vmtest-6.12: make vmtest KVER=6.12 (part of make test)
vmtest-6.12: setup build
	@$(MAKE) --no-print-directory vmtest KVER=6.12

# vmtest-7.2: the whole suite on trixie-backports' and forky's 7.2 (about
# 30 minutes; part of make test-full, not of make test, which has the 7.2
# and 7.3 modules' checks only: make check)
vmtest-7.2: setup build
	@$(MAKE) --no-print-directory vmtest KVER=7.2

# vmtest-systemd: a Debian 13 root file system (scripts/vm/mkrootfs, cached in
# build/vm-systemd/) booted with systemd as PID 1 on Debian 13's 6.12, with
# the 6.12 modules and efq-weightd (tools/weightd, built in build/bench):
# tests/vm-systemd/, weights written by systemd-run and runc
# (scripts/vm/vmtest-systemd).  VMTEST_ONLY=PATTERN,...: those files only.
vmtest-systemd: setup
	@$(MAKE) --no-print-directory module KVER=6.12
	@scripts/vm/vmtest-systemd $(if $(VMTEST_ONLY),--only $(VMTEST_ONLY))

# vmtest-systemd-short: the same boot with none (the control) and cfq only
# (vmtest.scheds=none,cfq): IOWeight=, IODeviceWeight= and runc in about 5
# minutes with the image's build; part of make test.
vmtest-systemd-short: setup
	@$(MAKE) --no-print-directory module KVER=6.12
	@scripts/vm/vmtest-systemd --append "vmtest.scheds=none,cfq"

# vmtest-systemd-v1: the Debian 12 admin's system: a Debian 12 root
# (scripts/vm/mkrootfs --release bookworm, cached in build/vm-systemd-bookworm/)
# booted on Debian 12's 6.1 with the 6.1 modules (build/kmod) and systemd 252
# as PID 1 on the legacy cgroup v1 hierarchy: tests/vm-systemd/v1/, runc's
# blockIO.weight (both cgroup drivers) and systemd's IOWeight= written to
# blkio.weight, every efq scheduler against none.  Not in make test (8 to 9
# minutes, a minute more for the image's first build); part of make test-full.
# VMTEST_ONLY=PATTERN,...: those files only.
vmtest-systemd-v1: setup
	@$(MAKE) --no-print-directory module
	@scripts/vm/vmtest-systemd --release bookworm --append "vmtest.budget=1200" \
		$(if $(VMTEST_ONLY),--only $(VMTEST_ONLY))

# vmtest-disks: tests/vm/35-disks.sh's whole matrix on Debian 12's 6.1
# (make test runs its short form in vmtest-6.12): on qemu's NVMe, AHCI SATA
# and virtio-blk disks, two cgroups at 1000:500 with sequential and random
# readers and direct writers under none, the four efq schedulers,
# mq-deadline and bfq, and sqlite's fsync'd commits beside a buffered
# writer.  Not in make test (about an hour); part of make test-full.
vmtest-disks: setup build
	@$(MAKE) --no-print-directory module
	@scripts/vm/vmtest --only 35-disks --budget 4200 --timeout 4500 --append "vmtest.disks_full=1"

# make test runs the whole suite on 6.12 and, on 6.1, the cgroup v1 blkio
# files, the tunables and cgroup files with io.efq.io_weight and the
# cftypes' lifetimes (what the compat layer maps), flushes, per-group
# request limits and the dispatch order against mq-deadline, judged on 6.1
# only (vmtest-6.1-core); 6.1 also runs blktests-quick.  test-full adds
# 6.1's other files (vmtest-6.1-rest: lifecycle, fairness, the integrity
# workloads, the aliased-read storm, the random writer, the benchmark,
# blktrace, fio scripts, replay), which run on 6.12 in make test.
VMTEST_61_CORE := 05-,10-,20-,25-,47-,48-,50-
VMTEST_61_REST := 30-,40-,45-,49-,55-,60-,70-,80-,90-
vmtest-6.1-core: setup build
	@$(MAKE) --no-print-directory vmtest VMTEST_ONLY=$(VMTEST_61_CORE)
vmtest-6.1-rest: setup build
	@$(MAKE) --no-print-directory vmtest VMTEST_ONLY=$(VMTEST_61_REST)

# --- kbench: the kernel benchmark (tests/vm/60-overhead.sh) -------------------
# Every scheduler's IOPS against none's on a fast null_blk, four cases
# (iodepth 1, iodepth 64, 4 jobs on 2 hardware queues, 8 cgroups), in
# KBENCH=ROUNDSxSECONDS[:ENGINE] interleaved rounds (the scheduler order
# rotating; fio's ioengine io_uring, or libaio);
# medians and spreads of the ratio to none and the cost per request
# (Documentation/kernel/performance.rst).  make vmtest runs it as 1x1.  A
# VM folder of its own (build/kbench: kernel image, initramfs, console), so
# that build/vm stays make vmtest's.
KBENCH ?= 5x3
kbench: setup build module
	@EFQ_VM_DIR=$(CURDIR)/build/kbench scripts/vm/vmtest --only 60- --kbench $(KBENCH)

# --- blktests: the block layer's upstream suite in the same VM ---------------
# BLKTESTS=DIR is a blktests checkout (read only: copied into
# build/blktests/tree and built there); BLKTESTS_MODES a comma-separated
# subset of control,listed,cfq,deadline-fq,as,noop (default: all six, one
# boot each); BLKTESTS_ARGS more options (scripts/vm/blktests --help).
# KVER=7.2 (6.12, 7.3, or a full KVER) boots that series' Debian kernel
# with build/kmod-7.2, as make vmtest KVER=7.2 does (scripts/vm/blktests
# --series); its files go to build/blktests-7.2/ (blktests-quick's to
# build/blktests-quick-7.2/).
.PHONY: blktests
BLKTESTS ?=
BLKTESTS_MODES ?=
BLKTESTS_ARGS ?=
BT_SERIES := $(if $(KVER),$(shell echo $(KVER) | sed -E 's/^([0-9]+\.[0-9]+).*/\1/'))
BT_SUFFIX := $(if $(filter-out 6.1,$(BT_SERIES)),-$(BT_SERIES))
blktests: setup module
	@JOBS=$(JOBS) scripts/vm/blktests $(if $(BT_SERIES),--series $(BT_SERIES)) \
		$(if $(BLKTESTS_MODES),--modes $(BLKTESTS_MODES)) $(BLKTESTS_ARGS) $(BLKTESTS)

# blktests-quick (part of make test): the control and each efq scheduler
# made the default, on the block tests that merge, discard, flush, switch
# schedulers and change queues under IO -- block/029 and block/035 oopsed
# and BUGed under cfq, as and noop before the merge fixes -- with the timed
# tests at TIMEOUT=10: about 8 minutes.  BLKTESTS_QUICK names the
# blktests checkout (the default below is where the project's machines keep
# one, beside this checkout); where there is none it says so and runs nothing (in CI,
# CI=true, it fails).  No retries: none of the seven is timing-bound.  Its files
# are in build/blktests-quick/, apart from a whole run's in build/blktests/.
BLKTESTS_QUICK ?= ../shared/blktests
BLKTESTS_QUICK_TESTS := 003,004,005,009,021,029,035
.PHONY: blktests-quick
blktests-quick: setup module
	@if [ -d "$(BLKTESTS_QUICK)" ]; then \
		JOBS=$(JOBS) EFQ_BT_DIR=$(CURDIR)/build/blktests-quick$(BT_SUFFIX) \
			scripts/vm/blktests $(if $(BT_SERIES),--series $(BT_SERIES)) --modes control,cfq,deadline-fq,as \
			--tests $(BLKTESTS_QUICK_TESTS) --timeout-for 029=10,035=10,005=10 \
			--retries 0 $(BLKTESTS_ARGS) $(BLKTESTS_QUICK); \
	elif [ -n "$$CI" ]; then \
		echo "blktests-quick: no blktests checkout at $(BLKTESTS_QUICK) in CI" >&2; exit 1; \
	else \
		echo "blktests-quick: no blktests checkout at $(BLKTESTS_QUICK) (BLKTESTS_QUICK=DIR): not run"; \
	fi

# 45-integrity's full matrix (tests/vm/45-integrity.sh, vmtest.integrity=full):
# only that file (seqwrite 64 MiB, the rest 16 MiB), every scheduler flat and
# hierarchical, block sizes 4k-1m, iodepth 1-64, fsync/fdatasync,
# trim/trimwrite; a crash costs one boot each (no --crash-limit).
# INTEGRITY_KERNEL=patched runs it on `make vmtest-patched`'s kernel
# (rebuilt first if the tree changed) in built-in mode, with its fault boot.
INTEGRITY_KERNEL ?= debian
vmtest-integrity: setup build
ifeq ($(INTEGRITY_KERNEL),patched)
	@$(MAKE) --no-print-directory patches
	@JOBS=$(JOBS) scripts/vmtest-patched --build
	@EFQ_VM_DIR=build/vmtest-patched scripts/vm/vmtest --builtin --kernel build/vmtest-patched/obj/vmlinux \
		--only 45-integrity --integrity full --timeout 6000 --budget 5600
else
	@$(MAKE) --no-print-directory module
	@scripts/vm/vmtest --only 45-integrity --integrity full --timeout 6000 --budget 5600
endif

# --- run: the headline demo (efqsim, Release build) --------------------------
# The cover letter's Test 2 (random reader vs N sequential readers) and
# Test 3 (weights 500 vs 1000) on the simulated disk, flat vs the IO
# controller; tables on stdout, PNG plots in out/ (scripts/run-demo).
# RUN_ARGS passes efqdemo options, e.g. make run RUN_ARGS="--runtime 10".
run: setup
	@JOBS=$(JOBS) scripts/run-demo $(RUN_ARGS)

# --- the patch series for a kernel tree (Documentation/block/patch-series.rst)
# Three series from the same files: against Debian 13's linux-source-6.12,
# Debian 12's linux-source-6.1 and trixie-backports' linux-source-7.2
# (6.12's and 7.2's trees are built in the chroot of scripts/debian13).
# patches:        out/patches-6.12/, out/patches-6.1/ and out/patches-7.2/
#                 from block/ include/ Documentation/block/, checked
#                 (checkpatch --strict, git am, patch -p1)
# intree-check:   each series applied to its linux-source, block/ built =y
#                 and =m with sparse and modpost; plus vmtest-patched's dry
#                 runs
# vmtest-patched: a patched kernel with efq built in, booted under qemu; the
#                 VM suite (tests/vm/) in built-in mode; each kernel twice,
#                 without iocost (efq's own io.weight) and with it
#                 (--iocost: io.weight through the series' iocost
#                 notifier); 6.12, 6.1 then 7.2, or
#                 KVER=6.12 / KVER=6.1 / KVER=7.2 alone (a kernel build each: about 10
#                 minutes the first time, 4 later; part of make test-full;
#                 efqsim lists the tunables: needs build)
.PHONY: patches intree-check intree-check-6.12 vmtest-patched vmtest-debug
patches: setup
	@scripts/mkpatches

intree-check: patches
	@JOBS=$(JOBS) scripts/intree-check
	@scripts/vmtest-patched --kernel 6.12 --dry-run
	@scripts/vmtest-patched --kernel 6.1 --dry-run
	@scripts/vmtest-patched --kernel 7.2 --dry-run
	@scripts/vmtest-patched --debug --dry-run

# intree-check-6.12 (make test): the three series made and checked, the
# 6.12 one built in-tree; the dry runs of every kernel's vmtest-patched
intree-check-6.12: patches
	@JOBS=$(JOBS) scripts/intree-check --kernel 6.12
	@scripts/vmtest-patched --kernel 6.12 --dry-run
	@scripts/vmtest-patched --kernel 6.1 --dry-run
	@scripts/vmtest-patched --kernel 7.2 --dry-run
	@scripts/vmtest-patched --debug --dry-run

PATCHED_KERNELS = $(if $(KVER),$(shell echo $(KVER) | sed -E 's/^([0-9]+\.[0-9]+).*/\1/'),6.12 6.1 7.2)
vmtest-patched: patches build
	@set -e; for k in $(PATCHED_KERNELS); do JOBS=$(JOBS) scripts/vmtest-patched --kernel $$k; \
		JOBS=$(JOBS) scripts/vmtest-patched --iocost --kernel $$k; done

# vmtest-debug: the same patched kernel with KASAN, lockdep, PROVE_RCU,
#               DEBUG_ATOMIC_SLEEP, list and object debugging, kmemleak and
#               fault injection (scripts/vmtest-debug.config), the whole VM
#               suite on it with 45-integrity's fast subset, failslab and
#               fail_make_request items; any checker report fails it (not
#               part of make test: the build and the slowed suite take
#               about an hour on 2 cores)
vmtest-debug: patches build
	@JOBS=$(JOBS) scripts/vmtest-patched --debug

# --- benchmarks -------------------------------------------------------------
bench: setup
	@cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release -DEFQ_SANITIZE=OFF >/dev/null
	@if [ -z "$$(ls bench/*.cc 2>/dev/null)" ]; then echo "bench: no bench/*.cc yet"; exit 0; fi; \
	cmake --build $(BENCH_DIR) -j$(JOBS) --target efq_bench && $(BENCH_DIR)/efq_bench

# --- efq-weightd: io.weight -> io.efq.io_weight (Documentation/block/efq-weightd.rst)
# install-weightd: build the program without sanitizers (build/bench,
# Release) and install it with its systemd unit.  install-weightd-files
# installs an already built WEIGHTD_BIN (the tests use it with a DESTDIR).
DESTDIR ?=
SBINDIR ?= /usr/local/sbin
UNITDIR ?= /etc/systemd/system
WEIGHTD_BIN ?= $(BENCH_DIR)/efq-weightd
.PHONY: install-weightd install-weightd-files
install-weightd: setup
	@cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release -DEFQ_SANITIZE=OFF >/dev/null
	cmake --build $(BENCH_DIR) -j$(JOBS) --target efq-weightd
	@$(MAKE) install-weightd-files WEIGHTD_BIN=$(BENCH_DIR)/efq-weightd

install-weightd-files:
	install -D -m 0755 $(WEIGHTD_BIN) $(DESTDIR)$(SBINDIR)/efq-weightd
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/sbin/efq-weightd|$(SBINDIR)/efq-weightd|' tools/weightd/efq-weightd.service \
		>$(DESTDIR)$(UNITDIR)/efq-weightd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/efq-weightd.service

# --- installing: the Debian packages, or without apt (efq-kernel.rst) -------
# deb: build/deb/efq-dkms_<version>_all.deb and efq-weightd_<version>_<arch>.deb
# (scripts/mkdeb: dpkg-buildpackage, debian/).  deb-check: both installed
# with apt in an overlay of the Debian 13 chroot beside the 6.12 and 7.2
# headers, DKMS's build for 7.3 when its headers come, removal, and make
# install/uninstall with and without dkms (scripts/deb-check; not in make
# test).  install/uninstall: no apt, no scripts/setup: the module source
# into /usr/src/efq-<version>, built by dkms for every installed kernel,
# or without dkms by kernel/Makefile into /lib/modules/<kernel>/updates/efq/
# (scripts/efq-install); efq-weightd and its unit too where a C++ compiler is.
WEIGHTD_PLAIN := build/weightd/efq-weightd
.PHONY: deb deb-check install uninstall
deb: setup
	@scripts/mkdeb

deb-check: setup
	@scripts/deb-check

install:
	@scripts/efq-install
	@if command -v $(CXX) >/dev/null; then \
		mkdir -p $(dir $(WEIGHTD_PLAIN)) && \
		$(CXX) -std=c++20 -O2 -Itools/weightd -o $(WEIGHTD_PLAIN) tools/weightd/*.cc && \
		$(MAKE) install-weightd-files WEIGHTD_BIN=$(WEIGHTD_PLAIN); \
	else \
		echo "install: no C++ compiler ($(CXX)): efq-weightd is not installed"; \
	fi

uninstall:
	@scripts/efq-install --uninstall
	rm -f $(DESTDIR)$(SBINDIR)/efq-weightd $(DESTDIR)$(UNITDIR)/efq-weightd.service

# --- C++ formatting ----------------------------------------------------------
format: setup
	@scripts/format

format-check: setup
	@scripts/format --check
	@scripts/docs-check

clean:
	rm -rf $(TEST_DIR) $(BENCH_DIR) $(FUZZ_DIR) build/kmod build/kmod-6.12 build/kmod-7.2 build/kmod-7.3 build/check build/deb build/deb-check build/weightd

distclean:
	rm -rf build
