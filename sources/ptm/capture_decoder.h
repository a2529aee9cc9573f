#pragma once
// Real CoreSight PTM/PFT captures in the OpenCSD/DS-5 snapshot format (snapshot.ini, device
// .ini files with registers and memory dumps, trace.ini naming the buffers), decoded with
// OpenCSD, the field's reference decoder, into instruction ranges, exceptions and gaps.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::decode {

struct DecodedRange {
    std::uint64_t start = 0, end = 0;  ///< [start, end) of the executed instructions
    std::uint32_t instructions = 0;
    std::uint8_t trace_id = 0;
};

/// What one core (one trace source) of a capture gave.
struct CoreTotals {
    trace::TracedCore core;
    std::uint64_t ranges = 0, instructions = 0, exceptions = 0;
    std::uint64_t cycles = 0;  ///< this core's cycle counts, when cycle-accurate
};

struct CaptureSummary {
    std::string snapshot;
    std::vector<std::uint8_t> trace_ids;  ///< the PTM sources decoded
    std::vector<CoreTotals> cores;        ///< each decoded source apart, as RunInfo::cores
    std::uint64_t ranges = 0;
    std::uint64_t instructions = 0;
    std::uint64_t exceptions = 0;
    std::uint64_t exception_returns = 0;
    std::uint64_t trace_on = 0;              ///< trace (re)starts
    std::uint64_t gaps = 0;                  ///< no-sync and address-not-in-memory stretches
    std::uint64_t lost_bytes = 0;            ///< trace bytes skipped while resynchronising after damage
    std::int64_t first_loss_at = -1;         ///< byte index where sync was first lost, or -1
    std::uint64_t cycles = 0;                ///< cycle counts of all sources together, when cycle-accurate
    std::uint64_t bytes = 0;                 ///< trace bytes processed
    std::vector<DecodedRange> first_ranges;  ///< the first few, for reports
    /// What OpenCSD could not decode: each error's byte offset in its buffer and OpenCSD's reason
    /// (the first kMaxErrors kept), and how many there were.
    struct Error {
        std::uint64_t offset = 0;
        std::string reason;
    };
    std::vector<Error> errors;
    std::uint64_t error_count = 0;
    static constexpr std::size_t kMaxErrors = 20;
    /// Whether part of the capture could not be decoded (errors, or bytes skipped to resync).
    bool damaged() const { return error_count || lost_bytes; }
};

/// The registers a PTM decoder is configured from (a trace_source device's .ini).
struct PtmRegisters {
    std::uint32_t idr = 0x411CF312;   ///< ETMIDR: PTM 1.1
    std::uint32_t ctrl = 0x20000400;  ///< ETMCR
    std::uint32_t ccer = 0x34C01AC2;  ///< ETMCCER
    std::uint32_t trace_id = 2;       ///< ETMTRACEIDR
    /// How the traced core numbers exceptions: emutrace's own streams come from M-profile cores.
    trace::ExceptionModel core_profile = trace::ExceptionModel::MProfile;
};

/// Code the traced core executed, for the decoder to follow the program through.
struct MemoryImage {
    std::uint32_t address = 0;
    std::span<const std::uint8_t> bytes;
};

/// Decodes raw, unformatted PTM bytes with no memory image (so ranges stop where code is
/// needed): the entry point the fuzzer drives. Never throws on any input.
CaptureSummary decode_ptm_bytes(const std::uint8_t* data, std::size_t size, const PtmRegisters& regs = {});

/// Decodes one PTM source's stream, raw or in CoreSight formatter frames (`formatted`), following
/// the program through `memory`; `sinks` receive it as the event model (see decode_snapshot).
/// Damaged stretches are skipped up to the next sync and counted in CaptureSummary::gaps.
CaptureSummary decode_pft(std::span<const std::uint8_t> data, const PtmRegisters& regs, std::span<const MemoryImage> memory,
                          const std::vector<trace::TraceSink*>& sinks, bool formatted = false);

/// Decodes every PTM/PFT source of the snapshot directory `dir`; a missing or malformed file
/// throws ConfigError naming it. `only_id` restricts decoding to one trace ID (0 = all).
/// `sinks` receive the capture as the common event model, as if it were an emulated run:
/// instruction ranges as Block events (cycle stamps from the capture's cycle counts when it is
/// cycle-accurate, else the instruction count so far), exceptions as ExceptionEntry and
/// ExceptionReturn, trace-on and lost sync as Gap, and a final Stop.
CaptureSummary decode_snapshot(const std::string& dir, std::uint8_t only_id = 0, const std::vector<trace::TraceSink*>& sinks = {});

}  // namespace emutrace::decode
