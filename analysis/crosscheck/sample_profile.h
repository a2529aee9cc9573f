#pragma once
// A capture's PC samples and exception trace against an emulated run (crosscheck --swo): where the
// time went, by function, as a share of the capture's samples and of the emulated run's cycles,
// and each exception's count and spacing in both.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emutrace/sink.h"

namespace emutrace::decode {
class SymbolTable;
}

namespace emutrace::analysis {

/// Time by function and exception entries of one run: a capture's (each PC sample, a block of one
/// instruction, weighs one) or an emulated run's (each block weighs its cycles).
class SampleProfile final : public trace::TraceSink {
public:
    enum class Weight { Samples, Cycles };
    /// `symbols` must outlive the profile.
    SampleProfile(const decode::SymbolTable& symbols, Weight weight) : symbols_(symbols), weight_(weight) {}
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& batch) override;

    /// Weight by function name ("(unknown)" outside every function); the total.
    const std::map<std::string, std::uint64_t>& functions() const { return functions_; }
    std::uint64_t total() const { return total_; }
    /// Cycle stamps of each exception's entries, by exception number (the first 100,000 of each).
    const std::map<std::uint32_t, std::vector<std::uint64_t>>& entries() const { return entries_; }

private:
    const decode::SymbolTable& symbols_;
    Weight weight_;
    std::uint32_t last_address_ = 0;
    const std::string* last_name_ = nullptr;  ///< the function of last_address_'s block: blocks repeat
    std::map<std::string, std::uint64_t> functions_;
    std::uint64_t total_ = 0;
    std::map<std::uint32_t, std::vector<std::uint64_t>> entries_;
};

struct SampleComparison {
    std::string text;
    nlohmann::json json;
    double largest_difference = 0;  ///< of a function's share, in percentage points
};

/// The capture's profile against the emulated one; `cycles_per_tick` turns the capture's timestamp
/// clocks into core cycles (ITM_TCR.TSPrescale: 1, 4, 16 or 64).
SampleComparison compare_samples(const SampleProfile& capture, const SampleProfile& emulated, double cycles_per_tick, std::size_t top = 12);

}  // namespace emutrace::analysis
