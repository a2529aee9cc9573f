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

struct MergedResults {
    std::uint64_t cases = 0, instructions = 0, cycles = 0;
    std::map<int, std::uint64_t> statuses;                ///< cases by exit status
    std::set<std::string> not_passed;                     ///< cases whose status is not 0
    std::map<std::string, ConstraintTotals> constraints;  ///< by name
    std::map<std::string, FunctionTotals> functions;      ///< by function name
    std::map<std::string, WcetTotals> wcet;               ///< by bounded function
    bool operator==(const MergedResults&) const = default;
};

/// One case's results: its --json result (null when it wrote none) and exit status.
MergedResults case_results(const nlohmann::json& result, int status, const std::string& case_id);
MergedResults merge(const MergedResults& a, const MergedResults& b);

nlohmann::json to_json(const MergedResults& r);
/// The terminal summary: statuses, constraints, the functions with the most cycles, WCET.
std::string summary(const MergedResults& r, std::size_t top_functions = 8);

}  // namespace emutrace::app
