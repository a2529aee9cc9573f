// The pipeline's state as a value: a key that says when two states run alike, and a move in
// time, so that the block-cost cache can save a state once and reuse it whenever it recurs.
#include <cstdint>
#include <vector>

#include "models/pipeline/pipeline.h"

namespace emutrace::models {
namespace {

// Cycles at or above this are "never" or "not yet known" marks, not times: they do not move.
constexpr std::uint64_t kMark = ~0ull >> 2;

}  // namespace

void Pipeline::state_key(std::vector<std::uint64_t>& out) const {
    const std::uint64_t now = cycle_;
    // A time as how long before (or after) now, with everything older than kHorizon alike.
    auto cycle = [now](std::uint64_t v) -> std::uint64_t {
        if (v >= kMark) return v;
        if (v + kHorizon < now) return kMark - 1;
        return v - now;  // wraps for the past: distinct from any future offset within the horizon
    };
    auto optional_cycle = [&](const std::optional<std::uint64_t>& v) { return v ? cycle(*v) : kMark - 2; };
    auto address = [](const ClassifiedInstruction* i) -> std::uint64_t { return i ? i->address : 1; };
    // A data address matters by its memory and its alignment (the aligner splits by the low bits).
    auto data = [this](std::uint32_t a) { return bus_.timing_key(a); };
    auto facts = [&](const InstructionFacts& f) {
        out.insert(out.end(), {f.pc, f.executed, f.taken, f.target, data(f.data_address), f.execute_cycles, f.lr, f.it_passes});
    };
    bus_.state_key(out, cycle);
    fetch_.state_key(out, cycle);
    if (decoded_) {
        const Decoded& d = *decoded_;
        out.insert(out.end(),
                   {address(d.insn), cycle(d.decoded_at), d.folded_it, d.branched_at_decode, d.speculated, d.resolved, cycle(d.speculated_at),
                    d.decode_target.value_or(1), d.speculate_target.value_or(1), std::uint64_t{fetch_.epoch() - d.epoch}, d.after_it_block});
    } else {
        out.push_back(kMark - 3);
    }
    out.insert(out.end(), {x_.active,
                           address(x_.insn),
                           cycle(x_.start),
                           cycle(x_.busy_until),
                           x_.transfers_left,
                           data(x_.next_address),
                           x_.split_end ? data(x_.split_next) : 1,
                           std::uint64_t{x_.split_end ? x_.split_end - x_.split_next : 0u},  // split_next is stale when not split
                           cycle(x_.last_data_end),
                           x_.waits_for_data,
                           optional_cycle(x_.redirect_at),
                           x_.redirect_to.value_or(1),
                           cycle(x_.first_address),
                           cycle(x_.address_cycle),
                           x_.transfers_done,
                           x_.phony,
                           x_.pipelined,
                           x_.speculation_unresolved,
                           x_.in_stream && x_.epoch_at_start == fetch_.epoch(),
                           x_.after_it_block});
    facts(x_.facts);
    out.push_back(facts_.size());
    for (const auto& f : facts_) facts(f);
    out.push_back(last_given_.has_value());
    if (last_given_) facts(*last_given_);
    out.push_back(address(last_given_insn_));
    for (std::uint64_t r : address_ready_) out.push_back(cycle(r));
    out.insert(out.end(),
               {previous_decoded_writes_lr_, previous_decoded_in_it_block_,
                std::uint64_t{control_.write_buffer} | std::uint64_t{control_.fold_it} << 1, decoded_link_, it_block_.first, it_block_.length,
                it_block_.passes, cycle(lsu_next_address_), lr_, cycle(store_data_end_), last_was_lsu_, cycle(refill_from_),
                cycle(decode_not_before_), std::uint64_t{decode_stalled_at_ == now}, cycle(lsu_until_), optional_cycle(given_data_phase_)});
    // The counts a read in each of the last cycles sees (at_data_phase), as differences from now.
    for (std::uint64_t back = 1; back < history_.size(); ++back) {
        const PipelineCounters& h = history_[(now - back) % history_.size()];
        out.insert(out.end(), {counters_.cycles - h.cycles, counters_.instructions - h.instructions, counters_.lsu - h.lsu, counters_.fold - h.fold});
    }
}

void Pipeline::move_to(const PipelineCounters& now) {
    const std::uint64_t delta = now.cycles - cycle_;
    auto shift = [delta](std::uint64_t& v) {
        if (v < kMark) v += delta;
    };
    auto shift_optional = [&](std::optional<std::uint64_t>& v) {
        if (v) shift(*v);
    };
    bus_.shift(shift);
    fetch_.shift(shift);
    if (decoded_) shift(decoded_->decoded_at), shift(decoded_->speculated_at);
    shift(x_.start), shift(x_.busy_until), shift(x_.last_data_end), shift_optional(x_.redirect_at), shift(x_.first_address), shift(x_.address_cycle);
    for (auto& r : address_ready_) shift(r);
    shift(lsu_next_address_), shift(store_data_end_), shift(refill_from_), shift(decode_not_before_), shift(lsu_until_), shift(decode_stalled_at_);
    shift_optional(given_data_phase_);
    // The ring of recent counts is indexed by cycle: rotate it with the time, and count on.
    std::array<PipelineCounters, 32> moved{};
    for (std::size_t k = 0; k < history_.size(); ++k) {
        PipelineCounters h = history_[k];
        h.cycles += delta;
        h.instructions += now.instructions - counters_.instructions;
        h.lsu += now.lsu - counters_.lsu;
        h.fold += now.fold - counters_.fold;
        moved[(k + delta) % history_.size()] = h;
    }
    history_ = moved;
    cycle_ = now.cycles;
    counters_ = now;
}

}  // namespace emutrace::models
