#include "analysis/sampler/marker_planner.h"

#include <algorithm>

namespace emutrace::analysis::sampler {

std::uint64_t MarkerPlanResult::best() const {
    return delta_t.empty() ? 0 : *std::max_element(delta_t.begin(), delta_t.end());
}

std::uint64_t MarkerPlanResult::interference() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 1; i < delta_t.size(); ++i)
        if (delta_t[i] < delta_t[i - 1]) sum += delta_t[i - 1] - delta_t[i];
    return sum;
}

double MarkerPlanResult::monotonicity() const {
    std::uint64_t drops = interference();
    return drops ? static_cast<double>(steps.size()) / static_cast<double>(drops) : -1.0;
}

double MarkerPlanResult::memory_efficiency() const {
    std::size_t bytes = plan.bytes();
    return bytes ? static_cast<double>(achieved()) / static_cast<double>(bytes) : static_cast<double>(achieved());
}

MarkerPlanResult plan_markers(const SamplingGraph& graph, MarkerScheme& scheme, unsigned steps, const SearchLimits& limits) {
    MarkerPlanResult r;
    r.scheme = scheme.name();
    r.plan = MarkerPlan(graph.vertices.size());
    for (unsigned step = 0;; ++step) {
        SearchOutcome found = find_intersecting_pair(graph, r.plan, limits);
        r.states += found.explored;
        if (!found.pair) {
            r.delta_t.push_back(found.lower_bound);
            r.unlimited = !found.exhausted;
            r.stopped = found.exhausted ? "the pair search ran out of its state budget; Δt is at least " + std::to_string(found.lower_bound)
                                        : "no two executions give the same samples below Δt " + std::to_string(limits.max_delta_t);
            return r;
        }
        r.delta_t.push_back(found.pair->delta_t);
        if (step == steps) {
            r.stopped = std::to_string(steps) + " steps done";
            return r;
        }
        StepResult done = scheme.instrument(graph, *found.pair, r.plan);
        if (!done.instrumented) {
            r.stopped = done.reason;
            return r;
        }
        r.steps.push_back({found.pair->delta_t, std::move(*found.pair), std::move(done.added)});
    }
}

}  // namespace emutrace::analysis::sampler
