#pragma once
// Turns a run's events into the ETMv3.4 instruction trace a Cortex-M3/M4 ETM writes (ETM
// Architecture Specification v3.5; OpenCSD's ETMv3 decoder reads it): A-sync and I-sync, a P-header
// atom for every instruction (E executed, N a conditional branch that was not taken), a branch
// address packet after each taken indirect branch, an exception's number with its handler's
// address, and the exception return packet; no data trace. Branch addresses use the alternative
// encoding (ETMIDR bit 20), as ETMv3.4 cores implement it. Cycle-accurate (ETMCR bit 12): the
// P-headers carry a W for each cycle, from the events' cycle stamps, so the W's add up to the
// run's cycles; within a block, each instruction takes one and its stalls go before its last
// instruction (the run knows a block's cycles, not its instructions').

#include <cstdint>
#include <span>
#include <vector>

#include "emutrace/event.h"

namespace emutrace::decode {

class ElfImage;

struct EtmOptions {
    std::uint8_t trace_id = 0x11;      ///< ETMTRACEIDR, 1..0x6F
    std::uint32_t sync_period = 1024;  ///< bytes between periodic A-sync + I-sync pairs
    bool cycle_accurate = false;       ///< ETMCR.CycleAccurate: a W per cycle in the P-headers
};

struct EtmStats {
    std::uint64_t bytes = 0, atoms = 0, branch_addresses = 0, exceptions = 0, exception_returns = 0, syncs = 0, discontinuities = 0;
    std::uint64_t cycles = 0;  ///< W's written (cycle-accurate)
};

class Etmv3Encoder {
public:
    /// ETMIDR: ETMv3.4 with the alternative branch encoding.
    static constexpr std::uint32_t kEtmIdr = 0x4114F240;
    /// ETMCR: instruction trace, cycle-accurate when asked.
    std::uint32_t etmcr() const { return options_.cycle_accurate ? 0x00001000u : 0u; }

    /// `code` gives instruction sizes where an exception cuts a block short (the firmware's image;
    /// it must outlive the encoder). Without it such a block counts as whole.
    explicit Etmv3Encoder(EtmOptions options = {}, const ElfImage* code = nullptr);
    const EtmOptions& options() const { return options_; }

    /// Feeds the events of a run in order; Block, ExceptionEntry, ExceptionReturn and Stop matter.
    void encode(std::span<const trace::Event> events);
    /// Ends the stream: the last block's atoms.
    void finish();

    std::span<const std::uint8_t> bytes() const { return out_; }
    void clear() {
        stats_.bytes += out_.size();
        out_.clear();
    }
    const EtmStats& stats() const { return stats_; }

private:
    void block(const trace::Event& e);
    /// The previous block ran on to `next`, which starts at cycle `now`: atoms for its
    /// instructions, its last one's by how it left.
    void resolve(std::uint32_t next, std::uint64_t now);
    /// The previous block was cut at `at` (an exception at cycle `now`): E atoms for its
    /// instructions before it.
    void cut_at(std::uint32_t at, std::uint64_t now);
    /// Every instruction of the current block ran, up to cycle `now` (a return from it, the end).
    void run_to_end(std::uint64_t now);
    void finish_at(std::uint64_t now);
    /// The atoms of `n` instructions, the last `executed` or not, in the cycles up to `now`.
    void atoms(std::uint32_t n, bool last_executed, std::uint64_t now);
    void atom(bool executed);
    void flush_atoms();
    /// Cycle-accurate: `waits` cycles in which no instruction finished (format-3 P-headers).
    void waits(std::uint64_t waits);
    void branch(std::uint32_t address, int exception);
    void async();
    void isync(std::uint32_t address, unsigned reason);
    std::uint32_t instructions_between(std::uint32_t from, std::uint32_t to) const;

    EtmOptions options_;
    const ElfImage* code_;
    std::vector<std::uint8_t> out_;
    EtmStats stats_;
    bool started_ = false, in_block_ = false;
    std::uint32_t block_start_ = 0, block_end_ = 0, block_instructions_ = 0;
    trace::BlockEnd block_leaves_ = trace::BlockEnd::Fallthrough;
    std::uint32_t last_address_ = 0;  ///< base for address compression
    unsigned executed_run_ = 0;       ///< E atoms not yet in a P-header
    int pending_exception_ = -1;      ///< taken: its packet waits for the handler's first block
    bool pending_return_ = false;     ///< returned: the next block's address goes out as a branch
    std::uint64_t next_sync_at_ = 0;
    std::uint64_t accounted_ = 0;  ///< cycle-accurate: the cycle up to which W's went out
    bool cycle_atoms_ = true;      ///< cycle-accurate: the next atom comes with its W
};

}  // namespace emutrace::decode
