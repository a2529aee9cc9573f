#pragma once
// How close each occurrence of a constraint came to its limit: counts of durations in bins of
// 10% of the limit, [0,10%) ... [90%,100%] within it, (100%,110%) ... over it (the last bin holds
// everything from 150% up). Fed the checker's windows;
// constant memory however many occurrences.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "analysis/constraints/constraint_checker.h"

namespace emutrace::analysis {

class ConstraintMargins {
public:
    static constexpr std::size_t kBins = 16;  ///< [0,10%), ..., [140%,150%), [150%, inf)
    explicit ConstraintMargins(const std::vector<ConstraintResult>& results) : results_(results) {}
    void on_window(std::size_t constraint, const ConstraintWindow& w) {
        if (constraint >= results_.size() || !results_[constraint].spec->limit_cycles) return;
        if (bins_.size() <= constraint) bins_.resize(constraint + 1);
        // Within the limit is bins 0..9, over it 10 and up, so that the bins drawn as misses hold
        // exactly the occurrences the checker failed on their duration (a duration equal to the
        // limit meets it).
        std::uint64_t limit = results_[constraint].spec->limit_cycles, d = w.end_cycle - w.start_cycle;
        std::uint64_t bin = d <= limit ? std::min<std::uint64_t>(d * 10 / limit, 9) : std::max<std::uint64_t>(d * 10 / limit, 10);
        ++bins_[constraint][std::min<std::uint64_t>(bin, kBins - 1)];
    }
    /// Bins of the constraint at `index` of the checker's results; all zero when it has no limit.
    std::array<std::uint64_t, kBins> bins(std::size_t index) const {
        return index < bins_.size() ? bins_[index] : std::array<std::uint64_t, kBins>{};
    }

private:
    const std::vector<ConstraintResult>& results_;
    std::vector<std::array<std::uint64_t, kBins>> bins_;
};

}  // namespace emutrace::analysis
