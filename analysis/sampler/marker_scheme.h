#pragma once
// The marker schemes of section 4 and 5 of the paper, as strategies behind one interface: given
// the intersecting pair that limits Δt, choose blocks and marker operations that tell its two
// paths apart, or say (with the paper's theorem) why the scheme cannot.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/pair_search.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

struct Instrumentation {
    std::uint32_t vertex = 0;
    MarkerOp op;
};

struct StepResult {
    bool instrumented = false;
    std::vector<Instrumentation> added;  ///< what the step put into the plan
    std::string reason;                  ///< why the scheme cannot (instrumented == false)
};

class MarkerScheme {
public:
    virtual ~MarkerScheme() = default;
    virtual std::string name() const = 0;
    /// Adds marker operations to `plan` so that the paths of `pair` end in different marker states.
    virtual StepResult instrument(const SamplingGraph& graph, const IntersectingPair& pair, MarkerPlan& plan) = 0;
};

/// "none" (no markers), "single", "multi" (10 counters), "multi:K" (K counters, 1..25), "assign",
/// "bitvec", "bitvec+";
/// null for another name.
std::unique_ptr<MarkerScheme> make_scheme(std::string_view name);
/// The names make_scheme takes, for help texts.
std::string scheme_names();

}  // namespace emutrace::analysis::sampler
