#include "models/pipeline/fetch_unit.h"

#include <algorithm>
#include <cstdio>

namespace emutrace::models {

namespace {
constexpr unsigned kQueueSlots = 6;  // halfwords: the decode head (2) and the queue behind it (4)
}

unsigned FetchUnit::free_slots() const {
    unsigned halfwords = (end_ - head_) / 2;
    unsigned allocated = (halfwords ? 2 : 0) + (halfwords > 2 ? halfwords - 2 : 0);
    for (const auto& f : in_flight_)
        if (!f.dropped) allocated += 2;
    return allocated >= kQueueSlots ? 0 : kQueueSlots - allocated;
}

void FetchUnit::redirect(std::uint32_t address, bool hold, bool after_presented) {
    address &= ~1u;
    hold_words_ = hold ? held_words_ : 0;
    held_ = false;
    ++epoch_;
    // Everything in flight is dropped, a B<cc>'s target too: no resolution will come for it, so
    // it is received and let go as any dropped word (kept, it would stay in the queue for good).
    for (auto& f : in_flight_) f.dropped = true, f.speculative = false;
    // The word the bus holds goes first, unless it is the target's own: then it is the target's fetch.
    const std::uint32_t held = committed_ ? committed_ : after_presented ? waiting_ : 0;
    committed_ = held != (address & ~3u) + 1 ? held : 0;
    waiting_ = 0;
    head_ = end_ = address;
    next_ = address & ~3u;
    skip_next_ = (address & 2) != 0;
    disabled_ = false;
    speculation_pending_ = speculating_ = false;
}

bool FetchUnit::redirect_within_queue(std::uint32_t address, std::uint32_t branch_word, bool hold) {
    address &= ~1u;
    // Only a plain sequential stream goes on: not stopped, nothing dropped, speculated or held on
    // the bus in it.
    if ((address & ~3u) <= branch_word || !holds(address, 2) || disabled_ || speculating_ || committed_) return false;
    for (const auto& f : in_flight_)
        if (f.dropped || f.speculative) return false;
    ++epoch_;
    head_ = address;
    // The words it has count against the held fetch's.
    unsigned words = (end_ - (address & ~3u) + 3) / 4 + static_cast<unsigned>(in_flight_.size());
    hold_words_ = hold && words < held_words_ ? static_cast<std::uint8_t>(held_words_ - words) : 0;
    held_ = hold && !hold_words_;
    return true;
}

void FetchUnit::speculate(std::uint32_t target) {
    speculation_target_ = target & ~1u;
    speculation_pending_ = speculating_ = true;
    speculation_presented_ = false;
}

void FetchUnit::resolve(bool taken, std::uint64_t cycle, bool gap) {
    if (!speculating_) return;
    speculating_ = false;
    bool issued = !speculation_pending_;
    speculation_pending_ = false;
    if (!taken) {
        if (gap) gap_at_ = cycle + 1;
        std::erase_if(in_flight_, [](const InFlight& f) { return f.speculative; });  // its data is dropped
        // Presented and not yet taken by the bus: fetched all the same, before the sequential stream.
        if (!issued && speculation_presented_ && holds_presented_) committed_ = (speculation_target_ & ~3u) + 1;
        return;
    }
    if (!issued) return redirect(speculation_target_);
    for (auto& f : in_flight_) f.dropped = !f.speculative;
    ++epoch_;
    head_ = end_ = speculation_target_;
    next_ = (speculation_target_ & ~3u) + 4;
    skip_next_ = false;
    for (auto& f : in_flight_) f.speculative = false;
    receive(cycle);
}

void FetchUnit::receive(std::uint64_t cycle) {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
        if (it->ready > cycle || it->speculative) {
            ++it;
            continue;
        }
        if (!it->dropped) {
            std::uint32_t from = it->word + (it->skip_half ? 2 : 0);
            if (from == end_) end_ = it->word + 4;
        }
        it = in_flight_.erase(it);
    }
}

void FetchUnit::request(std::uint64_t cycle, unsigned advancing) {
    requested_ = false;
    // A gap only holds the sequential stream, in its one cycle; past it, it is forgotten, so that
    // it does not set apart states the cost cache would otherwise find alike.
    const bool gap = gap_at_ == cycle;
    if (gap_at_ <= cycle) gap_at_ = kNoGap;
    if (committed_) {
        bus_->request(Master::Fetch, committed_ - 1, cycle);
        requested_ = true;
        return;
    }
    if (speculation_pending_) {
        bus_->request(Master::Fetch, speculation_target_ & ~3u, cycle);
        requested_ = speculation_presented_ = true;
        return;
    }
    // A held branch entering execute still fills the decode register (CMEmu: HoldBranch(false)).
    const unsigned branch_slots = releasing_ ? 2 : 0;
    releasing_ = false;
    if (disabled_ || held_ || gap || free_slots() + advancing < 2 + branch_slots) {
        waiting_ = 0;
        return;
    }
    bus_->request(Master::Fetch, next_, cycle);
    requested_ = true;
}

bool FetchUnit::issue(std::uint64_t cycle) {
    if (!requested_) return false;
    if (committed_) {
        if (!bus_->may_grant(Master::Fetch, committed_ - 1, cycle)) return false;
        Grant g = bus_->grant(Master::Fetch, committed_ - 1, cycle);
        in_flight_.push_back({committed_ - 1, g.data_end + 1, false, true, false});
        committed_ = 0;
        return true;
    }
    std::uint32_t word = speculation_pending_ ? speculation_target_ & ~3u : next_;
    if (!bus_->may_grant(Master::Fetch, word, cycle)) {
        if (!speculation_pending_ && bus_->waits_for_ready(Master::Fetch, word, cycle)) waiting_ = word + 1;
        return false;
    }
    waiting_ = 0;
    Grant g = bus_->grant(Master::Fetch, word, cycle);
    if (speculation_pending_) {
        in_flight_.push_back({word, g.data_end + 1, (speculation_target_ & 2) != 0, false, true});
        speculation_pending_ = false;
        return true;
    }
    in_flight_.push_back({word, g.data_end + 1, skip_next_, false, false});
    skip_next_ = false;
    if (hold_words_ && --hold_words_ == 0) held_ = true;
    next_ += 4;
    return true;
}

std::string FetchUnit::describe() const {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, "[%x,%x) next %x%s", head_, end_, next_, disabled_ ? " off" : "");
    for (const auto& f : in_flight_)
        n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), " %x@%lu%s%s", f.word, (unsigned long)f.ready, f.dropped ? "d" : "",
                           f.speculative ? "s" : "");
    return buf;
}

}  // namespace emutrace::models
