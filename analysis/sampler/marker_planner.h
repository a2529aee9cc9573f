#pragma once
// Instrumentation steps (section 3): find the pair that limits Δt, let the scheme tell it apart,
// search again; with the paper's metrics (section 6) per step and per run.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/sampler/marker_scheme.h"

namespace emutrace::analysis::sampler {

struct PlanStep {
    std::uint64_t delta_t = 0;  ///< Δt before the step (the pair's)
    IntersectingPair pair;      ///< the pair the step told apart
    std::vector<Instrumentation> added;
};

struct MarkerPlanResult {
    std::string scheme;
    MarkerPlan plan;
    std::vector<PlanStep> steps;
    /// Δt before any marker, then after each step; the last is what the plan achieves.
    std::vector<std::uint64_t> delta_t;
    /// Why the steps ended: the scheme's theorem, no pair left below the search limit, or the
    /// step count reached.
    std::string stopped;
    bool unlimited = false;    ///< no two executions agree below the search limit: Δt is at least that
    std::uint64_t states = 0;  ///< product states the searches explored

    std::uint64_t achieved() const { return delta_t.empty() ? 0 : delta_t.back(); }
    std::uint64_t best() const;  ///< max Δt over the steps (the paper's max(T_i))
    /// The paper's monotonicity M = N / Σ dᵢ, dᵢ the drops of Δt between steps; infinite (returned
    /// as a negative number) when Δt never dropped.
    double monotonicity() const;
    /// Sum of the drops of Δt (the paper's interference).
    std::uint64_t interference() const;
    /// The paper's μ = Δt / memory, per byte of marker memory (Δt when there is none).
    double memory_efficiency() const;
};

/// Runs up to `steps` instrumentation steps of `scheme` on `graph`.
MarkerPlanResult plan_markers(const SamplingGraph& graph, MarkerScheme& scheme, unsigned steps, const SearchLimits& limits = {});

}  // namespace emutrace::analysis::sampler
