#pragma once
// Turns a cycle-annotated event stream into a CoreSight PTM/PFT 1.1 byte stream, the packets a
// Cortex-A9/A15 PTM would write for the same program flow: A-sync and I-sync (at the start,
// periodically and after discontinuities), atoms for direct branches, branch-address packets for
// taken indirect branches and exceptions (with the exception number), waypoint updates before an
// exception that interrupts a straight-line stretch, and exception-return packets. In
// cycle-accurate mode every atom and branch address carries the cycles since the previous count.
//
// Packet layouts follow the PFT 1.1 architecture as OpenCSD, the reference decoder, reads them
// (for instance the oldest atom of a multi-atom packet is its highest atom bit).

#include <cstdint>
#include <span>
#include <vector>

#include "emutrace/event.h"

namespace emutrace::decode {

struct PftOptions {
    bool cycle_accurate = true;
    std::uint8_t trace_id = 0x10;      ///< ETMTRACEIDR, 1..0x6F
    std::uint32_t sync_period = 1024;  ///< bytes between periodic A-sync + I-sync pairs
};

/// What the stream has carried so far.
struct PftStats {
    std::uint64_t bytes = 0, atoms = 0, branch_addresses = 0, exceptions = 0, exception_returns = 0, waypoint_updates = 0, syncs = 0,
                  discontinuities = 0;
};

class ElfImage;

class PftEncoder {
public:
    /// `code` finds instruction boundaries for waypoint updates (the firmware's image; it must
    /// outlive the encoder). Without it, the last instruction of a stretch is taken to be 16-bit.
    explicit PftEncoder(PftOptions options = {}, const ElfImage* code = nullptr);

    /// The register values a decoder must be configured with for this stream (ETMCR etc.).
    std::uint32_t etmcr() const { return options_.cycle_accurate ? 0x00001000u : 0u; }
    const PftOptions& options() const { return options_; }

    /// Feeds the events of a run in order; Block, ExceptionEntry, ExceptionReturn and Stop matter.
    void encode(std::span<const trace::Event> events);
    /// Ends the stream: completes the last range. Further events start a new trace session.
    void finish();

    /// The bytes written since the last clear().
    std::span<const std::uint8_t> bytes() const { return {out_.data(), used_}; }
    void clear() {
        stats_.bytes += used_;
        used_ = 0;
    }
    std::size_t pending_bytes() const { return used_; }
    const PftStats& stats() const { return stats_; }

private:
    void on_block(const trace::Event& e);
    void on_other(const trace::Event& e);
    void start(std::uint32_t address, std::uint64_t cycle);
    // Settles the waypoint ending the previous block, now that execution continues at `next`.
    void resolve(std::uint32_t next, std::uint64_t cycle);
    // Writes an exception return that happened before the event at `cycle`.
    void settle_return(std::uint64_t cycle);
    // Closes the straight-line stretch the decoder is walking at `address` (waypoint update).
    void trace_up_to(std::uint32_t address);

    void atom(bool executed, std::uint64_t cycle);
    void flush_atoms();
    void branch(std::uint32_t address, int exception, std::uint64_t cycle);
    void waypoint_update(std::uint32_t address);
    std::uint32_t last_instruction_before(std::uint32_t address) const;
    void async();
    void isync(std::uint32_t address, unsigned reason, std::uint64_t cycle);
    void address_bytes(std::uint32_t address, unsigned count, bool more_follows);
    void cycle_count(std::uint32_t count, std::uint8_t first_byte_flags);
    std::uint32_t cycles_since(std::uint64_t cycle);
    void byte(std::uint8_t b) { out_[used_++] = b; }
    void reserve();
    static constexpr std::size_t kMostPerEvent = 64;  ///< a waypoint update, a sync pair and a branch with exception and count

    PftOptions options_;
    const ElfImage* code_;
    std::vector<std::uint8_t> out_;  ///< written up to used_; reserve() keeps room for one event's packets
    std::size_t used_ = 0;
    PftStats stats_;
    bool started_ = false;
    std::uint32_t decoder_at_ = 0;        ///< where a decoder of the stream so far resumes walking
    std::uint32_t last_address_ = 0;      ///< base for address compression
    std::uint64_t last_count_cycle_ = 0;  ///< stamp of the last cycle count written
    std::uint32_t block_start_ = 0, block_end_ = 0;
    trace::BlockEnd pending_ = trace::BlockEnd::Fallthrough;  ///< the last block's final waypoint, unsettled
    int pending_exception_ = -1;                              ///< taken; its packet waits for the handler's address
    std::int64_t pending_return_ = -1;                        ///< an exception return's resume address, settled at the next event
    std::uint8_t atom_bits_ = 0, atom_count_ = 0;             ///< non-cycle-accurate atoms not yet written
    std::uint64_t next_sync_at_ = 0;
};

}  // namespace emutrace::decode
