#pragma once
// The fetch unit: a prefetch queue of three words (the decode head, one word, and two words
// behind it; CMEmu's PIQ), filled a word at a time from I-Code or the System bus. It asks for the
// next word while two halfword slots are free, counting each word in flight as two; a branch held
// at decode keeps the decode register's two slots through the cycle it enters execute. A branch
// flushes the queue and the words in flight and fetches the target's word (only its upper
// halfword when the target is at 2 mod 4), unless the target is queued already beyond the
// branch's own word. B<cc> fetches its target's word at decode without flushing: taken, the
// queue restarts from it; not taken, its data is dropped.

#include <cstdint>
#include <string>
#include <vector>

#include "models/pipeline/bus_matrix.h"

namespace emutrace::models {

class FetchUnit {
public:
    /// `holds_presented`: an address presented on the bus stays there until taken (AHB), so a
    /// speculative target fetch presented before its B<cc> resolved is still made, and dropped.
    /// `held_words`: the words fetched from a held branch's target before the fetch stops (redirect()).
    explicit FetchUnit(BusMatrix& bus, bool holds_presented = false, unsigned held_words = 1)
        : bus_(&bus), holds_presented_(holds_presented), held_words_(static_cast<std::uint8_t>(held_words ? held_words : 1)) {}
    /// Fetches over `bus` from now on (a copied pipeline's own).
    void attach(BusMatrix& bus) { bus_ = &bus; }

    /// Empties the queue and fetches from `address` next (a branch target, reset, an exception).
    /// `hold`: a branch at decode that waits for execute: only the target's word (or the core's
    /// held_words) is fetched until release() (CMEmu's HoldBranch; piq_narrow_b_to_unaligned).
    /// `after_presented`: a branch in execute (or held at decode), which redirects only after the
    /// fetch has presented this cycle's address: a word whose address the bus holds (waiting for a
    /// wait-stated data phase to end) is still fetched, and dropped, before the target's, unless
    /// it is the target's word.
    void redirect(std::uint32_t address, bool hold = false, bool after_presented = false);
    /// A branch at decode to `address` beyond its own word (`branch_word`): if the target is queued
    /// already, the queue goes on from it with the words in flight behind it, and true (measured on
    /// the CC2652, piq_narrow_b_to_unaligned: no second fetch of the target's word). `hold` as redirect().
    bool redirect_within_queue(std::uint32_t address, std::uint32_t branch_word, bool hold);
    /// The held branch enters execute: the fetch goes on, from the next cycle if the target's words
    /// fill the queue beside the branch (CMEmu's HoldBranch, then CompleteBranch).
    void release() {
        releasing_ = held_ || hold_words_;
        held_ = false;
        hold_words_ = 0;
    }
    /// B<cc> at decode: fetch `target`'s word next, keeping the queue.
    void speculate(std::uint32_t target);
    /// The speculated B<cc> resolved: taken restarts the queue at its target (its word may be in flight).
    /// `gap`, not taken: the fetch asks for nothing in the cycle after (PipelineParameters::
    /// fetch_gap_after_it_branch).
    void resolve(bool taken, std::uint64_t cycle, bool gap = false);
    bool stopped() const { return disabled_; }
    /// Stops fetching until redirect() (a load of the pc, TBB, WFI). With `holds_presented`, an
    /// address the bus holds is still fetched (and dropped).
    void disable(std::uint64_t cycle) {
        disabled_ = true;
        if (holds_presented_ && waiting_) committed_ = waiting_;  // on the bus already: still fetched, and dropped
        waiting_ = 0;
        bus_->drop_held_fetch(cycle);
    }

    /// Start of `cycle`: words whose data phase ended arrive in the queue.
    void receive(std::uint64_t cycle);
    /// Asks the bus for the next word in `cycle` (requests come before grants). `advancing`:
    /// halfwords the decoded instruction frees when it moves to execute next cycle, which the
    /// fetch may count on (CMEmu's over-commit).
    void request(std::uint64_t cycle, unsigned advancing = 0);
    /// Issues the next word's address phase when the bus grants it; whether it did.
    bool issue(std::uint64_t cycle);

    /// The halfwords queued from head() on: the instruction decode looks at starts at head().
    std::uint32_t head() const { return head_; }
    /// The next sequential word it will fetch.
    std::uint32_t next_word() const { return next_; }
    bool holds(std::uint32_t address, unsigned bytes) const { return address >= head_ && address + bytes <= end_; }
    /// Execute took `bytes` from the head.
    void consume(unsigned bytes) { head_ += bytes; }
    /// Changes on every redirect: an instruction decoded before one is no longer in the queue.
    std::uint32_t epoch() const { return epoch_; }
    std::string describe() const;

    /// Appends the state that decides later fetches, its cycles as `cycle(value)` writes them;
    /// the epoch counts only against a decoded instruction's (epoch()).
    template <typename Cycle>
    void state_key(std::vector<std::uint64_t>& out, Cycle cycle) const {
        out.insert(out.end(), {head_, end_, next_, skip_next_, disabled_, held_, hold_words_, requested_, speculation_pending_,
                               speculation_presented_, speculating_, speculation_target_, in_flight_.size(), waiting_, committed_, cycle(gap_at_)});
        for (const InFlight& f : in_flight_) out.insert(out.end(), {f.word, cycle(f.ready), f.skip_half, f.dropped, f.speculative});
    }
    template <typename Shift>
    void shift(Shift shift) {
        for (InFlight& f : in_flight_) shift(f.ready);
        shift(gap_at_);
    }

private:
    static constexpr std::uint64_t kNoGap = ~0ull;  ///< a mark, not a time: state_key's cycle() and shift() keep it as it is
    struct InFlight {
        std::uint32_t word = 0;
        std::uint64_t ready = 0;   ///< the cycle decode can use it
        bool skip_half = false;    ///< only the upper halfword is wanted (a target at 2 mod 4)
        bool dropped = false;      ///< flushed: its data is not kept
        bool speculative = false;  ///< a B<cc>'s target
    };
    unsigned free_slots() const;

    BusMatrix* bus_;
    bool holds_presented_ = false;
    std::uint8_t held_words_ = 1;
    std::uint32_t head_ = 0, end_ = 0;  ///< queued halfwords [head_, end_)
    std::uint32_t next_ = 0;            ///< next sequential word to fetch
    bool skip_next_ = false;            ///< the next word fetched is a target at 2 mod 4
    bool disabled_ = false;
    bool held_ = false;            ///< fetched the held branch target's words; no more until release()
    std::uint8_t hold_words_ = 0;  ///< words a held branch's target may still fetch before held_
    bool requested_ = false;
    std::uint64_t gap_at_ = kNoGap;  ///< a cycle in which the fetch asks for nothing (resolve())
    bool releasing_ = false;         ///< a held branch enters execute this cycle and still holds the decode register's two slots
    std::uint32_t epoch_ = 0;
    std::vector<InFlight> in_flight_;
    /// A B<cc> decoded this cycle or waiting for its resolution: its target.
    bool speculation_pending_ = false;    ///< target not yet issued
    bool speculation_presented_ = false;  ///< its address was on the bus (behind a held sequential word, it is not)
    bool speculating_ = false;            ///< issued (or pending), not yet resolved
    std::uint32_t speculation_target_ = 0;
    /// A sequential word whose address the bus has not yet accepted (the interface was busy): + 1,
    /// 0 for none. An AHB master holds a presented address until it is taken, so a redirect
    /// does not withdraw it: it becomes `committed_`, fetched (and dropped) before the new stream.
    std::uint32_t waiting_ = 0, committed_ = 0;
};

}  // namespace emutrace::models
