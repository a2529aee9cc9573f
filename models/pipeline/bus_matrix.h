#pragma once
// The bus matrix between the core's masters (the fetch unit on I-Code, the load/store unit on
// D-Code, both on the System bus) and the memories behind it. Each memory interface takes one
// address phase a cycle; a transfer's data phase follows its address phase and lasts one cycle
// plus the memory's wait states, and the next address phase may overlap its last cycle (AHB
// pipelining). When both masters want one interface in one cycle, the interface's priority
// decides: data first on the code interfaces, the fetch first on the System bus (CMEmu's
// measured arbitration). A fetch over the System bus passes a registration buffer first and
// reaches the bus a cycle after the core issued it; stopping the fetch drops one it still holds.

#include <array>
#include <cstdint>
#include <vector>

#include "models/memory_system.h"
#include "models/pipeline/pipeline_parameters.h"

namespace emutrace::models {

enum class Master : std::uint8_t { Fetch, Data };

/// What a data transfer is to the bus: a read, a buffered write, or a piece of an unaligned
/// write that the core's aligner split.
enum class DataTransfer : std::uint8_t { Read, Write, WritePiece };

/// One granted transfer: when its data arrives.
struct Grant {
    std::uint64_t data_end = 0;  ///< the last cycle of its data phase
};

class BusMatrix {
public:
    /// The core's rules the bus matrix follows: with fetch_holds_presented_address, an address a
    /// master presents while the interface's data phase is in wait states stays on it until taken
    /// (AHB), so of two masters waiting, the one that presented first is served first.
    explicit BusMatrix(const MemorySystem& memory, const PipelineParameters& core = {})
        : memory_(&memory), holds_presented_(core.fetch_holds_presented_address),
          tracks_fetch_(core.fetch_holds_presented_address || core.load_behind_store_waits_for_fetch) {}

    /// Whether `master` may start a transfer at `address` in `cycle`: its interface is free then
    /// (for a registered fetch, in the cycle after too) and no higher-priority master asked for it
    /// this cycle (requests are made before grants: request(), then grant()).
    void request(Master master, std::uint32_t address, std::uint64_t cycle);
    /// `master` goes on asking without an address this cycle: a multiple transfer's next word,
    /// waiting for its own data phase, keeps its place for the interface.
    void keep_asking(Master master, std::uint32_t address, std::uint64_t cycle);
    bool may_grant(Master master, std::uint32_t address, std::uint64_t cycle) const;
    /// Whether an address `master` presents for `address` in `cycle` waits because the
    /// interface's data phase is in wait states (AHB HREADY low): the master must hold it.
    bool waits_for_ready(Master master, std::uint32_t address, std::uint64_t cycle) const;
    /// Takes the interface for one transfer issued in `cycle` (an LDM asks once a word). A
    /// buffered write holds fetches off the interface until its data phase ends; a fetch through
    /// the registration buffer that would reach the bus in that data phase is latched anyway and
    /// goes in the cycle after it, first (the System bus serves the fetch first, and a read does
    /// not start in a write's data phase: the cycle is lost to data too). An unaligned write's
    /// pieces hold fetches off without latching them.
    Grant grant(Master master, std::uint32_t address, std::uint64_t cycle, DataTransfer kind = DataTransfer::Read);
    const MemoryPort& port(std::uint32_t address) const { return memory_->at(address); }
    std::uint64_t timing_key(std::uint32_t address) const { return memory_->timing_key(address); }
    /// Whether a fetch from `address` passes the registration buffer (code over the System bus
    /// at more than a cycle a word): the buffer takes its address in the cycle the fetch issues it.
    bool fetch_registered(std::uint32_t address) const { return memory_->at(address).fetch_word_cycles > 1; }
    /// The fetch stopped (a load of the pc): a fetch the registration buffer holds and has not
    /// presented by `cycle` is dropped, and its bus cycle is free for data.
    void drop_held_fetch(std::uint64_t cycle);
    /// The memory system's switches from now on (firmware wrote a control register).
    void set_mode(const MemoryMode& mode) {
        if (mode.cache_enabled != mode_.cache_enabled)  // another buffer in front now
            buffered_line_ = prefetched_tag_ = 0, missed_.clear(), read_ahead_lost_at_ = {kNoCycle, kNoCycle};
        mode_ = mode;
    }
    /// The cache (beside the timing, models/flash_cache.h) missed the line that starts at `line`:
    /// the first read of it from now on also waits for the flash (MemoryPort::line_wait_states).
    /// At most kMostMissedLines wait at once (more than a translated block's lines); the oldest
    /// is forgotten beyond.
    void cache_missed(std::uint32_t line);
    static constexpr std::size_t kMostMissedLines = 1024;
    const MemoryMode& mode() const { return mode_; }
    /// Whether a fetch's data phase on the System bus is still running in `cycle`.
    bool system_fetch_in_flight(std::uint64_t cycle) const { return state_[System].fetch_data_end >= cycle; }

    /// Appends the state that decides later grants, its cycles as `cycle(value)` writes them.
    template <typename Cycle>
    void state_key(std::vector<std::uint64_t>& out, Cycle cycle) const {
        for (const State& s : state_) {
            out.insert(out.end(), {cycle(s.next_address), cycle(s.requested_cycle), cycle(s.requested_in), s.requested, cycle(s.fetch_after_write),
                                   s.write_latches_fetch, cycle(s.ready_from)});
            // Only a core whose rules read them keys them: on others they would tell alike states apart.
            if (tracks_fetch_)
                out.insert(out.end(), {cycle(s.fetch_data_end), cycle(s.asking_since[0]), cycle(s.asking_since[1]), cycle(s.asked_last[0]),
                                       cycle(s.asked_last[1])});
        }
        out.insert(out.end(), {cycle(fetch_next_issue_), held_.interface, cycle(held_.at), cycle(held_.next_address_before)});
        out.insert(out.end(), {buffered_line_, prefetched_tag_, mode_.cache_enabled, mode_.line_buffers, missed_.size()});
        // Only a cycle to come can take a grant: a past one keys as none, so that states after a
        // miss long enough ago key alike (cycle() wraps a past time to above any offset to come).
        for (std::uint64_t lost : read_ahead_lost_at_) {
            const std::uint64_t c = cycle(lost);
            out.push_back(c <= kMostCyclesAhead ? c : kNoCycle);
        }
        out.insert(out.end(), missed_.begin(), missed_.end());
    }
    /// The same state `delta` cycles later.
    template <typename Shift>
    void shift(Shift shift) {
        for (State& s : state_)
            shift(s.next_address), shift(s.requested_cycle), shift(s.requested_in), shift(s.fetch_after_write), shift(s.ready_from),
                shift(s.fetch_data_end), shift(s.asking_since[0]), shift(s.asking_since[1]), shift(s.asked_last[0]), shift(s.asked_last[1]);
        shift(fetch_next_issue_), shift(held_.at), shift(held_.next_address_before), shift(read_ahead_lost_at_[0]), shift(read_ahead_lost_at_[1]);
    }

private:
    enum Interface : std::uint8_t { ICode, DCode, System, Ppb, kInterfaces };
    Interface interface_of(Master master, std::uint32_t address) const;
    // The cycle in which the interface presents a transfer the core issues in `cycle`.
    std::uint64_t presented(Master master, std::uint32_t address, std::uint64_t cycle) const;
    static constexpr std::uint64_t kNotAsking = ~0ull;             ///< a mark, not a time: the state's shift leaves it
    static constexpr std::uint64_t kNoCycle = ~0ull;               ///< a mark, not a time: the state's shift leaves it
    static constexpr std::uint64_t kMostCyclesAhead = 1ull << 32;  ///< beyond: a past cycle, wrapped, in state_key
    struct State {
        std::uint64_t next_address = 0;                                   ///< the first cycle a new address phase may be presented
        std::uint64_t requested_cycle = ~0ull;                            ///< the cycle the requests below want to be presented in
        std::uint64_t requested_in = ~0ull;                               ///< the cycle they were made in
        std::uint8_t requested = 0;                                       ///< Master bits asking in requested_cycle
        std::uint64_t fetch_after_write = 0;                              ///< a buffered write holds fetches off until its data phase ends
        bool write_latches_fetch = false;                                 ///< and a registered fetch asking in it is latched (grant())
        std::uint64_t ready_from = 0;                                     ///< the data phase in progress is in wait states until then
        std::uint64_t fetch_data_end = 0;                                 ///< the last cycle of the latest fetch's data phase
        std::array<std::uint64_t, 2> asking_since{};                      ///< per Master: the first cycle of its unbroken run of requests
        std::array<std::uint64_t, 2> asked_last{kNotAsking, kNotAsking};  ///< per Master: the last cycle it requested in
        /// Whether master `m` asking in `cycle` goes on an unbroken run (it asked this cycle or the last).
        bool asks_on(unsigned m, std::uint64_t cycle) const {
            return asked_last[m] != kNotAsking && (asked_last[m] == cycle || asked_last[m] + 1 == cycle);
        }
    };
    const MemorySystem* memory_;
    bool holds_presented_ = false;
    bool tracks_fetch_ = false;  ///< a rule reads the fetches' data phases and the masters' waits
    std::array<State, kInterfaces> state_{};
    std::uint64_t fetch_next_issue_ = 0;  ///< the registration buffer holds a fetch until it is presented
    struct Held {
        Interface interface = ICode;
        std::uint64_t at = ~0ull;  ///< when the registration buffer presents it
        std::uint64_t next_address_before = 0;
    } held_;
    MemoryMode mode_;
    /// The line the flash's line buffer holds (MemoryPort::line_bytes): its first byte + 1, 0 for
    /// none. Fetches and data reads share it, as they share the port (a CC26x2's VIMS has one line
    /// buffer for its I/D-code port: measured, a load from a line a branch's target fetch has
    /// displaced waits for the flash again, memory/b_after_ldr).
    /// With a cache on (MemoryPort::cached), the cache line its front buffer holds instead, as the
    /// flash's line buffer is then behind the cache.
    std::uint32_t buffered_line_ = 0;
    /// With a cache on: the line whose tag the cache read ahead (first byte + 1; 0 for none).
    std::uint32_t prefetched_tag_ = 0;
    /// With a cache on: the lines it missed that no read has taken from the flash yet (first
    /// byte + 1), oldest first. Empty but while a block that missed runs, so that the states the
    /// block-cost cache saves do not allocate.
    std::vector<std::uint32_t> missed_;
    /// With a cache on: the cycles in which a lookup does not use the tag read ahead (cache_front_wait),
    /// kNoCycle for none.
    std::array<std::uint64_t, 2> read_ahead_lost_at_{kNoCycle, kNoCycle};
    bool take_missed(std::uint32_t line);
    // The wait states a read of `address` pays for the line buffer in front of its memory (the
    // flash's, or with the cache on the cache's and its tag lookup), which then holds its line.
    // `at`: the cycle the read's address is presented in.
    unsigned line_buffer_wait(const MemoryPort& port, std::uint32_t address, std::uint64_t at);
    unsigned cache_front_wait(const MemoryPort& port, std::uint32_t address, std::uint64_t at);
};

}  // namespace emutrace::models
