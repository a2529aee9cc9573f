#include "analysis/replay/execution_times.h"

#include <algorithm>

#include "analysis/replay/replayer.h"

namespace emutrace::analysis::replay {

ExecutionTimes::ExecutionTimes(std::vector<std::pair<std::uint32_t, std::uint32_t>> instrumentation, const Replayer* replayer,
                               std::uint32_t site_cycles)
    : instrumentation_(std::move(instrumentation)), replayer_(replayer), site_cycles_(site_cycles) {
    std::sort(instrumentation_.begin(), instrumentation_.end());
}

bool ExecutionTimes::instrumentation(std::uint32_t address) const {
    auto it = std::upper_bound(instrumentation_.begin(), instrumentation_.end(), std::make_pair(address, ~0u));
    return it != instrumentation_.begin() && address < std::prev(it)->second;
}

void ExecutionTimes::charge(std::uint64_t now) {
    if (now <= last_) return;
    const std::uint64_t delta = now - last_;
    const std::uint32_t id = tracker_.context();
    ContextTime& t = contexts_[id];
    t.cycles += delta;
    const auto& stack = stacks_[id];
    if (!stack.empty() && stack.back().instrumentation) {
        t.instrumentation += delta;
    } else if (replayer_ && !tracker_.in_handler()) {
        t.hold += replayer_->held_between(id, last_, now);
    }
    last_ = now;
}

void ExecutionTimes::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        charge(e.cycle);
        tracker_.on_event(e, batch);
        if (e.kind == trace::EventKind::ExceptionEntry) stacks_[tracker_.context()].clear();
        if (e.kind != trace::EventKind::Branch) continue;
        const std::uint32_t id = tracker_.context();
        auto& stack = stacks_[id];
        ContextTime& t = contexts_[id];
        const auto kind = static_cast<trace::BranchKind>(e.value);
        const bool inside = !stack.empty() && stack.back().instrumentation;
        if ((kind == trace::BranchKind::Call || kind == trace::BranchKind::Jump) && !inside && instrumentation(e.address)) {
            // The program calls the recorder: what the call site cost is the recorder's too.
            ++t.recorder_calls;
            t.instrumentation += std::min<std::uint64_t>(site_cycles_, t.cycles - t.instrumentation - t.hold);
        }
        if (kind == trace::BranchKind::Call) {
            stack.push_back({e.address, t.cycles, t.instrumentation + t.hold, inside || instrumentation(e.address)});
        } else if (kind == trace::BranchKind::Jump && !inside && instrumentation(e.address)) {
            // A tail call into instrumentation: the rest of this frame is the recorder's.
            if (stack.empty())
                stack.push_back({e.address, t.cycles, t.instrumentation + t.hold, true});
            else
                stack.back().instrumentation = true;
        } else if (kind == trace::BranchKind::Return && !stack.empty()) {
            const Frame f = stack.back();
            stack.pop_back();
            FunctionTime& ft = functions_[f.function];
            ++ft.calls;
            ft.cycles += t.cycles - f.cycles_at_entry;
            ft.overhead += t.instrumentation + t.hold - f.overhead_at_entry;
        }
    }
}

}  // namespace emutrace::analysis::replay
