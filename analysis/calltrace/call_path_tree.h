#pragma once
// Cycles by call path, for the report's flame graph: the cycles between two call events go to
// the path on top of the context that runs (a thread's stack, or an exception handler's), so a
// path's value is the time spent in it and above it, with preemption and switched-out time
// where it really went. Bounded: at most kMaxNodes paths and kMaxDepth levels; deeper or later
// paths add to their deepest kept ancestor.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "report/flame_graph.h"

namespace emutrace::analysis {

class CallPathTree final : public CallListener {
public:
    static constexpr std::size_t kMaxNodes = 10'000;
    static constexpr std::uint32_t kMaxDepth = 128;

    explicit CallPathTree(const CallTracer& tracer);
    void on_call_event(const CallEvent& e) override;
    void on_finish(std::uint64_t end_cycle) override;
    /// The tree, root "all", children by decreasing cycles; thread roots named "thread NAME",
    /// handlers under "exceptions", whose own cycles are exception entry and return.
    report::FlameNode flame() const;

private:
    struct Node {
        std::uint32_t parent;
        std::uint32_t function;  ///< function address; a context root's: its key
        std::uint64_t self = 0;
        bool root = false;  ///< a thread's or the handlers' base
    };
    std::uint32_t child(std::uint32_t parent, std::uint32_t function);
    std::uint32_t context_root(std::uint32_t context, std::uint32_t thread);
    std::vector<std::uint32_t>& stack(std::uint32_t context, std::uint32_t thread);
    void account(std::uint64_t cycle);

    const CallTracer& tracer_;
    std::vector<Node> nodes_;                                               ///< 0 is "all"
    std::unordered_map<std::uint64_t, std::uint32_t> children_;             ///< (parent << 32 | function) -> node
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> stacks_;  ///< by context: node indices
    std::unordered_map<std::uint32_t, std::uint32_t> context_thread_;       ///< context -> thread, for its root's name
    std::uint32_t live_ = 0;                                                ///< the node time goes to now
    std::uint64_t last_cycle_ = 0;
};

}  // namespace emutrace::analysis
