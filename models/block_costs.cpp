#include "models/block_costs.h"

#include <algorithm>
#include <numeric>

namespace emutrace::models {

BlockCosts block_costs(const TimingModel* model, std::span<const decode::Instruction> insns, const decode::Instruction* previous,
                       std::uint32_t instructions, std::uint32_t bytes, unsigned fetch_wait) {
    const std::size_t n = insns.size();
    BlockCosts b;
    b.cost.assign(n, 1);
    b.lsu.assign(n, 0);
    b.fold.assign(n, 0);
    b.executed_extra.assign(n, 0);
    b.executed_extra_lsu.assign(n, 0);
    const decode::Instruction* const first_previous = previous;
    std::vector<bool> overlapped(n, false);  // the next instruction runs in this load's second cycle
    std::vector<bool> pipelined(n, false);   // a load counted as pipelined behind the load before
    if (!model) {
        b.cycles = instructions;
    } else {
        // An instruction in an IT block that fails its condition takes TimingModel::skipped(): the
        // block counts that, and a hook adds the difference when it runs.
        for (std::size_t i = 0; i < n; ++i) {
            b.cost[i] = model->instruction(insns[i], previous);
            bool skippable = insns[i].conditional && !decode::is_conditional_branch(insns[i]);
            if (unsigned skip = TimingModel::skipped(); skippable && b.cost[i] != skip) {
                b.executed_extra[i] = static_cast<int>(b.cost[i]) - static_cast<int>(skip);
                b.cost[i] = skip;
            }
            if (i == 0 && previous) {
                unsigned alone = model->instruction(insns[0], nullptr);
                b.branch_in_extra = static_cast<int>(skippable ? std::min(alone, TimingModel::skipped()) : alone) - static_cast<int>(b.cost[0]);
            }
            if (i > 0 && b.cost[i - 1] > 1 && !b.executed_extra[i - 1] && model->overlaps_load(insns[i], &insns[i - 1])) {
                overlapped[i - 1] = true;
                --b.cost[i - 1];
                const decode::Instruction* before = i > 1 ? &insns[i - 2] : first_previous;
                b.lsu[i - 1] = model->lsu_cycles(insns[i - 1], b.cost[i - 1], before);
            }
            b.lsu[i] = model->lsu_cycles(insns[i], b.cost[i], previous);
            b.fold[i] = model->folded(insns[i], previous);
            if (b.executed_extra[i] > 0)
                b.executed_extra_lsu[i] = static_cast<std::uint8_t>(model->lsu_cycles(insns[i], static_cast<unsigned>(b.executed_extra[i]) + 1));
            previous = &insns[i];
        }
        for (std::size_t i = 0; i < n; ++i) pipelined[i] = model->pipelined_load(insns[i], i ? &insns[i - 1] : first_previous);
        // Each fetched word's wait; a taken branch's refill waits for its target's word.
        b.cycles = std::accumulate(b.cost.begin(), b.cost.end(), 0u) + fetch_wait * ((bytes + 3) / 4);
        b.taken_extra = (n ? static_cast<int>(model->taken_extra(insns.back())) : 0) + static_cast<int>(fetch_wait);
    }
    b.lsu_total = std::accumulate(b.lsu.begin(), b.lsu.end(), 0u);
    b.fold_total = std::accumulate(b.fold.begin(), b.fold.end(), 0u);
    // A device sees an access in the instruction's last cycle, its data phase: a load pipelined
    // behind another reads one cycle after it (silicon: ldr; ldr from DWT_CYCCNT differ by 1). The
    // DWT's event counters have counted the accessing instruction by then, but not an LSU cycle
    // in its data phase: whether the next instruction runs in it is settled only after the read
    // (silicon: cbz_deps, a DWT read whose data phase a NOP runs in counts no LSU cycle).
    std::uint32_t before = 0, lsu_before = 0, fold_before = 0;
    // A load's data phase that no instruction runs in is still to come: the last of a pipelined
    // run of loads, which may have started in the block before.
    bool data_phase_pending = first_previous && first_previous->memory.mode != decode::MemoryAccess::Mode::None;
    for (std::size_t i = 0; i < n; ++i) {
        before += b.cost[i];
        lsu_before += b.lsu[i];
        fold_before += b.fold[i];
        if (insns[i].memory.mode == decode::MemoryAccess::Mode::None) continue;
        // A load whose data phase the next instruction overlaps reads when it would have alone.
        std::uint32_t data_phase = before - (overlapped[i] ? 0 : 1);
        data_phase_pending = !overlapped[i] && (pipelined[i] ? data_phase_pending : b.lsu[i] > 0);
        b.accesses.push_back({i, b.cycles - std::min(b.cycles, data_phase), instructions - static_cast<std::uint32_t>(i + 1),
                              b.lsu_total - lsu_before + (data_phase_pending ? 1 : 0), b.fold_total - fold_before});
    }
    return b;
}

}  // namespace emutrace::models
