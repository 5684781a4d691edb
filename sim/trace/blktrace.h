// SPDX-License-Identifier: GPL-2.0
// efqsim traces: blktrace's binary files (NAME.blktrace.CPU).  Each is a
// sequence of 48-byte struct blk_io_trace records, each followed by pdu_len
// bytes of payload:
//
//   u32 magic     0x65617400 | version (7)
//   u32 sequence
//   u64 time      ns since the trace started
//   u64 sector
//   u32 bytes
//   u32 action    category bits << 16 | action code (| __BLK_TA_CGROUP)
//   u32 pid
//   u32 device    (major << 20) | minor
//   u32 cpu
//   u16 error
//   u16 pdu_len
//
// in the byte order of the machine that recorded it (detected from the
// magic).  With __BLK_TA_CGROUP (1 << 8) in the action, the payload starts
// with the 8-byte cgroup id.  Notify records (category BLK_TC_NOTIFY) carry
// a process name (__BLK_TN_PROCESS), a timestamp or a message text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "trace/event.h"

namespace efqsim::trace {

constexpr uint32_t kMagic = 0x65617400;
constexpr uint32_t kVersion = 0x07;
constexpr size_t kRecordSize = 48;

// Category bits (the upper 16 bits of action).
enum BlkTc : uint32_t {
	kTcRead = 1u << 0,
	kTcWrite = 1u << 1,
	kTcFlush = 1u << 2,
	kTcSync = 1u << 3,
	kTcQueue = 1u << 4,
	kTcRequeue = 1u << 5,
	kTcIssue = 1u << 6,
	kTcComplete = 1u << 7,
	kTcFs = 1u << 8,
	kTcPc = 1u << 9,
	kTcNotify = 1u << 10,
	kTcAhead = 1u << 11,
	kTcMeta = 1u << 12,
	kTcDiscard = 1u << 13,
	kTcDrvData = 1u << 14,
	kTcFua = 1u << 15,
};

// Action codes (the low bits of action).
enum BlkTa : uint32_t {
	kTaQueue = 1,
	kTaBackmerge,
	kTaFrontmerge,
	kTaGetrq,
	kTaSleeprq,
	kTaRequeue,
	kTaIssue,
	kTaComplete,
	kTaPlug,
	kTaUnplugIo,
	kTaUnplugTimer,
	kTaInsert,
	kTaSplit,
	kTaBounce,
	kTaRemap,
	kTaAbort,
	kTaDrvData,
	kTaCgroup = 1u << 8, // a flag: the payload starts with the cgroup id
};

// Notify codes (action code with category BLK_TC_NOTIFY).
enum BlkTn : uint32_t {
	kTnProcess = 0,
	kTnTimestamp = 1,
	kTnMessage = 2,
};

// One binary file.  Reads in 1 MiB chunks: memory does not grow with the
// trace.  Records of unknown action codes are skipped; a bad magic or
// version, or a record cut short by the end of the file, is an error.
std::unique_ptr<EventSource> open_blktrace(const std::string &path, std::string *err);

// What a record holds, for writing one (tests, benchmarks, conversions).
struct Record {
	uint32_t sequence = 0;
	uint64_t time_ns = 0;
	uint64_t sector = 0;
	uint32_t bytes = 0;
	uint32_t action = 0; // category << 16 | code
	uint32_t pid = 0;
	uint32_t device = 0;
	uint32_t cpu = 0;
	uint16_t error = 0;
	std::string pdu;
};

// The record's bytes, native byte order unless @swap.
std::string encode_record(const Record &r, bool swap = false);
// A record for @ev (Q/G/I/D/C/M/F/P/U/T/S/R/X/B/A or m), with its cgroup id
// in the payload when ev.has_cgroup, and a process notify record for
// ev.comm before it when @with_comm.
std::string encode_event(const Event &ev, bool with_comm = false, bool swap = false);

} // namespace efqsim::trace
