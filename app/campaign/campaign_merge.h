#pragma once
// Many runs' results as one. Counts add, extremes stay extremes (with the case that gave them),
// a mean is a total over a count. merge() is associative and commutative, so the order cases
// finish in, or how they are split among machines, does not change the answer.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace emutrace::app {

/// The case and its value: the larger value wins, on a tie the smaller case id (an order of its own).
struct Extreme {
    std::uint64_t value = 0;
    std::string case_id;
    bool operator==(const Extreme&) const = default;
    void keep_larger(const Extreme& o) {
        if (o.case_id.empty()) return;
        if (case_id.empty() || o.value > value || (o.value == value && o.case_id < case_id)) *this = o;
    }
};

struct ConstraintTotals {
    std::uint64_t limit_cycles = 0;  ///< the largest limit; cases at other clocks have other limits in cycles
    std::uint64_t smallest_limit_cycles = UINT64_MAX;
    std::uint64_t occurrences = 0, violations = 0, total_cycles = 0;
    std::uint64_t min_cycles = UINT64_MAX;
    Extreme max;                   ///< the longest occurrence and its case
    std::set<std::string> failed;  ///< cases in which it was violated
    bool operator==(const ConstraintTotals&) const = default;
};

/// A function of one firmware: a campaign may run several, each with its own main.
struct FirmwareFunction {
    std::string firmware;  ///< the ELF's path, as the case's result names it
    std::string function;
    auto operator<=>(const FirmwareFunction&) const = default;
    /// The function's name, and its firmware's file name when the campaign ran more than one.
    std::string label(bool several_firmware) const;
};

struct FunctionTotals {
    std::uint64_t calls = 0, inclusive_cycles = 0, exclusive_cycles = 0;
    std::uint64_t inclusive_min = UINT64_MAX, exclusive_min = UINT64_MAX, inclusive_max = 0, exclusive_max = 0;
    bool operator==(const FunctionTotals&) const = default;
};

struct WcetTotals {
    std::uint64_t runs = 0;
    Extreme observed, bound;  ///< the longest run measured and the largest bound, with their cases
    bool operator==(const WcetTotals&) const = default;
};

/// One firmware's coverage (--coverage) over the cases that measured it: what ran in any of them.
struct CoverageTotals {
    std::uint64_t cases = 0, blocks_defined = 0;
    std::set<std::string> functions_defined, functions_executed;
    std::set<std::uint32_t> blocks_executed;  ///< basic blocks by start address
    bool operator==(const CoverageTotals&) const = default;
};

/// One sampler configuration (function and scheme) over its cases: the intervals' verdicts add.
struct SamplerTotals {
    std::uint64_t cases = 0, samples = 0, checked = 0, correct = 0, unique_unchecked = 0, ambiguous = 0, wrong = 0, impossible = 0, left_out = 0;
    Extreme most_wrong;  ///< the case with the most intervals reconstructed wrongly or impossibly (none: no case)
    bool operator==(const SamplerTotals&) const = default;
};

/// Replays and recordings over their cases.
struct ReplayTotals {
    std::uint64_t replays = 0, reproduced = 0, same_global_order = 0, events = 0, events_reproduced = 0;
    std::uint64_t recordings = 0, recorded_events = 0;
    std::set<std::string> diverged;  ///< cases whose replay did not reproduce its log
    bool operator==(const ReplayTotals&) const = default;
};

struct MergedResults {
    std::uint64_t cases = 0, instructions = 0, cycles = 0;
    std::map<int, std::uint64_t> statuses;                 ///< cases by exit status
    std::set<std::string> not_passed;                      ///< cases whose status is not 0
    std::map<std::string, ConstraintTotals> constraints;   ///< by name
    std::map<FirmwareFunction, FunctionTotals> functions;  ///< by firmware and function
    std::map<FirmwareFunction, WcetTotals> wcet;           ///< by firmware and bounded function
    std::map<std::string, CoverageTotals> coverage;        ///< by firmware
    std::map<std::string, SamplerTotals> sampler;          ///< by "function: scheme"
    ReplayTotals replay;
    bool operator==(const MergedResults&) const = default;
};

/// One case's results: its --json result (null when it wrote none) and exit status.
MergedResults case_results(const nlohmann::json& result, int status, const std::string& case_id);
MergedResults merge(const MergedResults& a, const MergedResults& b);

nlohmann::json to_json(const MergedResults& r);
/// The terminal summary: statuses, constraints, the functions with the most cycles, WCET.
std::string summary(const MergedResults& r, std::size_t top_functions = 8);

}  // namespace emutrace::app
