#include "analysis/calltrace/call_path_tree.h"

#include <algorithm>
#include <functional>

namespace emutrace::analysis {
namespace {
constexpr std::uint32_t kHandlersKey = 0xFFFF'FFFFu;  ///< the root of every exception context
}

CallPathTree::CallPathTree(const CallTracer& tracer) : tracer_(tracer) {
    nodes_.push_back({0, 0, 0, true});
}

std::uint32_t CallPathTree::child(std::uint32_t parent, std::uint32_t function) {
    std::uint64_t key = static_cast<std::uint64_t>(parent) << 32 | function;
    auto it = children_.find(key);
    if (it != children_.end()) return it->second;
    if (nodes_.size() >= kMaxNodes) return parent;
    auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({parent, function, 0, false});
    children_.emplace(key, index);
    return index;
}

std::uint32_t CallPathTree::context_root(std::uint32_t context, std::uint32_t thread) {
    // Threads by index; every handler context shares one "exceptions" root.
    std::uint32_t key = context >= kExceptionContext ? kHandlersKey : thread;
    std::uint32_t node = child(0, key);
    if (node) nodes_[node].root = true;
    return node;
}

std::vector<std::uint32_t>& CallPathTree::stack(std::uint32_t context, std::uint32_t thread) {
    auto& s = stacks_[context];
    if (s.empty()) s.push_back(context_root(context, thread));
    return s;
}

void CallPathTree::account(std::uint64_t cycle) {
    if (cycle > last_cycle_) nodes_[live_].self += cycle - last_cycle_;
    last_cycle_ = std::max(last_cycle_, cycle);
}

void CallPathTree::on_call_event(const CallEvent& e) {
    account(e.cycle);
    switch (e.kind) {
        case CallEvent::Kind::Entry: {
            // Pushed and popped as the profile does, not by the event's depth: the tracer's depth
            // also counts the frames of a BL into a function's own body, which enter no function.
            auto& s = stack(e.context, e.thread);
            std::uint32_t node = s.size() > kMaxDepth ? s.back() : child(s.back(), e.function);
            s.push_back(node);
            live_ = node;
            break;
        }
        case CallEvent::Kind::Exit: {
            auto& s = stack(e.context, e.thread);
            if (s.size() > 1) s.pop_back();
            live_ = s.back();
            break;
        }
        case CallEvent::Kind::ExceptionEntry:
            // Stacking, until the handler's first call: the exception mechanism's own time, as is
            // unstacking after the handler's return (its context's base is the handlers' root).
            live_ = context_root(kExceptionContext, 0);
            break;
        case CallEvent::Kind::ExceptionReturn:
        case CallEvent::Kind::Resume:
            // A thread's context is its index; the event's `thread` may be the handlers'.
            live_ = stack(e.context, e.context < kExceptionContext ? e.context : 0).back();
            break;
        case CallEvent::Kind::ThreadSwitch: live_ = stack(e.thread, e.thread).back(); break;
        case CallEvent::Kind::Marker: break;
    }
}

void CallPathTree::on_finish(std::uint64_t end_cycle) {
    account(end_cycle);
}

report::FlameNode CallPathTree::flame() const {
    std::vector<std::vector<std::uint32_t>> kids(nodes_.size());
    for (std::uint32_t i = 1; i < nodes_.size(); ++i) kids[nodes_[i].parent].push_back(i);
    auto name = [&](std::uint32_t i) -> std::string {
        const Node& n = nodes_[i];
        if (i == 0) return "all";
        if (n.root) {
            if (n.function == kHandlersKey) return "exceptions";
            const auto& threads = tracer_.threads();
            return "thread " + (n.function < threads.size() ? threads[n.function] : std::to_string(n.function));
        }
        return tracer_.function_name(n.function);
    };
    // Built bottom-up without recursion over the firmware's own depth.
    std::vector<report::FlameNode> built(nodes_.size());
    for (std::uint32_t i = static_cast<std::uint32_t>(nodes_.size()); i-- > 0;) {
        report::FlameNode& f = built[i];
        f.name = name(i);
        f.value = nodes_[i].self;
        for (std::uint32_t k : kids[i]) {
            f.value += built[k].value;
            if (built[k].value) f.children.push_back(std::move(built[k]));
        }
        std::sort(f.children.begin(), f.children.end(), [](const auto& a, const auto& b) { return a.value > b.value; });
    }
    return std::move(built[0]);
}

}  // namespace emutrace::analysis
