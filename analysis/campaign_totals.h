#pragma once
// What the in-tree analyses' campaign totals share: the CampaignTotals interface over a plain
// struct of counts, saturating sums, and an extreme kept with the case that gave it.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "emutrace/analysis.h"
#include "report/json_fields.h"

namespace emutrace::analysis {

/// Counts near 2^64 (a mistyped or hostile result) stay at the top instead of wrapping to a small
/// sum that reads as a real one.
template <typename Count>
void saturating_add(Count& into, Count more) {
    into = more > std::numeric_limits<Count>::max() - into ? std::numeric_limits<Count>::max() : into + more;
}

/// Adds each of b's `counts` to a's.
template <typename T, typename... Count>
void add_counts(T& a, const T& b, Count... counts) {
    (saturating_add(a.*counts, b.*counts), ...);
}

inline double rate(std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

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

/// In-tree totals take a case's result already parsed: the campaign parsed the case's file once,
/// and a plug-in's totals, which get the text, are the only ones that need it again.
class ParsedCaseTotals {
public:
    virtual void add_parsed_case(const CampaignCase& c, const nlohmann::json& result) = 0;

protected:
    ~ParsedCaseTotals() = default;
};

/// CampaignTotals over `T`, which has add_case(const CampaignCase&, const nlohmann::json&),
/// merge(const T&), to_json() -> nlohmann::json (an object) and summary(bool), and may have
/// finish(const CampaignRunEntry&) and test_cases(const CampaignCase&, const nlohmann::json&).
template <typename T>
class TotalsOf final : public CampaignTotals, public ParsedCaseTotals {
public:
    void add_case(const CampaignCase& c, const std::string& result) override {
        nlohmann::json j = nlohmann::json::parse(result, nullptr, false);
        if (j.is_object()) value.add_case(c, j);  // a damaged or mistyped result adds nothing
    }
    void add_parsed_case(const CampaignCase& c, const nlohmann::json& result) override {
        if (result.is_object()) value.add_case(c, result);
    }
    void merge(const CampaignTotals& other) override { value.merge(dynamic_cast<const TotalsOf&>(other).value); }
    std::unique_ptr<CampaignTotals> copy() const override { return std::make_unique<TotalsOf>(*this); }
    std::string json() const override { return value.to_json().dump(); }
    std::string summary(bool brief) const override { return value.summary(brief); }
    std::string finish(const CampaignRunEntry& entry) override {
        if constexpr (requires { value.finish(entry); })
            return value.finish(entry);
        else
            return {};
    }
    std::vector<TestCase> test_cases(const CampaignCase& c, const std::string& result) const override {
        if constexpr (requires { value.test_cases(c, nlohmann::json()); }) {
            nlohmann::json j = nlohmann::json::parse(result, nullptr, false);
            return j.is_object() ? value.test_cases(c, j) : std::vector<TestCase>{};
        } else {
            return {};
        }
    }

    T value;
};

/// The CampaignMerge of an analysis whose totals are `T` and whose report sections `report` draws
/// from the parsed merged result.
template <typename T>
CampaignMerge campaign_merge_of(std::string (*report)(const nlohmann::json& merged)) {
    return {[] { return std::make_unique<TotalsOf<T>>(); },
            [report](const std::string& merged) {
                nlohmann::json j = nlohmann::json::parse(merged, nullptr, false);
                return j.is_object() ? report(j) : std::string();
            }};
}

using report::member;

/// A function's name in a campaign's totals, with its firmware's file name when the campaign ran
/// more than one firmware (each has its own main).
inline std::string function_label(const std::string& firmware, const std::string& function, bool several_firmware) {
    return several_firmware ? function + " (" + std::filesystem::path(firmware).filename().string() + ")" : function;
}

}  // namespace emutrace::analysis
