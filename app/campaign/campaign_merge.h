#pragma once
// Many runs' results as one: what every run has (statuses, instructions, cycles) here, and each
// registered analysis's own totals through its CampaignMerge (emutrace/analysis.h), so that the
// campaign names no analysis. merge() is associative and commutative, so the order cases finish
// in, or how they are split among machines, does not change the answer.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "emutrace/registry.h"

namespace emutrace::app {

struct MergedResults {
    std::uint64_t cases = 0, instructions = 0, cycles = 0;
    std::map<int, std::uint64_t> statuses;  ///< cases by exit status
    std::set<std::string> not_passed;       ///< cases whose status is not 0
    struct Totals {
        std::string analysis;  ///< its name: the key of its part of a case's result
        std::unique_ptr<CampaignTotals> totals;
    };
    /// The campaign-aware analyses' totals, by registry order (the summary's and report's order).
    std::map<std::size_t, Totals> analyses;

    MergedResults() = default;
    MergedResults(const MergedResults& other);
    MergedResults& operator=(const MergedResults& other);
    MergedResults(MergedResults&&) = default;
    MergedResults& operator=(MergedResults&&) = default;
    /// The same counts and the same JSON: what the merge's answer is.
    bool operator==(const MergedResults& other) const;
};

/// One case's results: its --json result (null when it wrote none) and exit status in `c`.
MergedResults case_results(const AnalysisRegistry& registry, const nlohmann::json& result, const emutrace::CampaignCase& c);
MergedResults merge(const MergedResults& a, const MergedResults& b);
/// merge() in place: `into` takes `b`'s results (no copy of what `into` holds already).
void merge_into(MergedResults& into, const MergedResults& b);

nlohmann::json to_json(const MergedResults& r);
/// The terminal summary: statuses, then each analysis's lines; `brief` for one run entry of several.
std::string summary(const MergedResults& r, bool brief = false);

}  // namespace emutrace::app
