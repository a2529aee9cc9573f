// The sampler over a campaign's cases: per configuration (function and scheme) the intervals'
// verdicts add, and the case with the most reconstructed wrongly or impossibly is kept.
#include "analysis/sampler/sampler_campaign.h"

#include <cstdio>
#include <map>

#include "analysis/campaign_totals.h"
#include "report/html.h"
#include "report/json_fields.h"

namespace emutrace::analysis {
namespace {

using nlohmann::json;
using report::count_at;
using report::text_at;
using report::thousands;

struct SchemeTotals {
    std::uint64_t cases = 0, samples = 0, checked = 0, correct = 0, unique_unchecked = 0, ambiguous = 0, wrong = 0, impossible = 0, left_out = 0;
    Extreme most_wrong;  ///< the case with the most intervals reconstructed wrongly or impossibly (none: no case)

    void add(const SchemeTotals& b) {
        using S = SchemeTotals;
        add_counts(*this, b, &S::cases, &S::samples, &S::checked, &S::correct, &S::unique_unchecked, &S::ambiguous, &S::wrong, &S::impossible,
                   &S::left_out);
        most_wrong.keep_larger(b.most_wrong);
    }
};

struct SamplerTotals {
    std::map<std::string, SchemeTotals> schemes;  ///< by "function: scheme"

    void add_case(const CampaignCase& c, const json& s) {
        SchemeTotals t;
        t.cases = 1;
        t.samples = count_at(s, "samples");
        t.checked = count_at(s, "intervals_checked");
        t.correct = count_at(s, "correct");
        t.unique_unchecked = count_at(s, "unique_unchecked");
        t.ambiguous = count_at(s, "ambiguous");
        t.wrong = count_at(s, "wrong");
        t.impossible = count_at(s, "impossible");
        t.left_out = count_at(s, "left_out");
        if (t.wrong + t.impossible) t.most_wrong = {t.wrong + t.impossible, c.id};
        schemes[text_at(s, "function") + ": " + text_at(s, "scheme")].add(t);
    }
    void merge(const SamplerTotals& b) {
        for (const auto& [name, t] : b.schemes) schemes[name].add(t);
    }
    json to_json() const {
        if (schemes.empty()) return json::object();
        json list = json::array();
        for (const auto& [name, t] : schemes)
            list.push_back({{"sampler", name},
                            {"cases", t.cases},
                            {"samples", t.samples},
                            {"intervals_checked", t.checked},
                            {"correct", t.correct},
                            {"unique_unchecked", t.unique_unchecked},
                            {"ambiguous", t.ambiguous},
                            {"wrong", t.wrong},
                            {"impossible", t.impossible},
                            {"left_out", t.left_out},
                            {"reconstructed_rate", rate(t.correct, t.checked)},
                            {"most_wrong", t.most_wrong.value},
                            {"most_wrong_case", t.most_wrong.case_id}});
        return {{"sampler", list}};
    }
    std::string summary(bool) const {
        std::string out;
        char line[512];
        for (const auto& [name, t] : schemes) {
            std::snprintf(
                line, sizeof line, "  sampler %s over %llu cases: %llu of %llu intervals reconstructed (%.2f%%), %llu wrong or impossible%s%s\n",
                name.c_str(), static_cast<unsigned long long>(t.cases), static_cast<unsigned long long>(t.correct),
                static_cast<unsigned long long>(t.checked), 100 * rate(t.correct, t.checked), static_cast<unsigned long long>(t.wrong + t.impossible),
                t.most_wrong.case_id.empty() ? "" : ", most in ", t.most_wrong.case_id.c_str());
            out += line;
        }
        return out;
    }
};

std::string sampler_report(const json& merged) {
    const json& list = member(member(merged, "overall"), "sampler");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"sampler", "cases", "intervals checked", "reconstructed", "", "wrong or impossible", "most in"};
    t.numeric = {false, true, true, true, true, true, false};
    for (const auto& x : list) {
        t.rows.push_back({report::escape(text_at(x, "sampler")), thousands(count_at(x, "cases")), thousands(count_at(x, "intervals_checked")),
                          thousands(count_at(x, "correct")), report::percent(report::number_at(x, "reconstructed_rate")),
                          thousands(count_at(x, "wrong") + count_at(x, "impossible")), report::escape(text_at(x, "most_wrong_case"))});
        t.row_classes.push_back(count_at(x, "wrong") + count_at(x, "impossible") ? "sampler bad" : "sampler");
    }
    return report::section("sampler", "Sampling over all cases", t.html());
}

}  // namespace

CampaignMerge sampler_campaign() {
    return campaign_merge_of<SamplerTotals>(&sampler_report);
}

}  // namespace emutrace::analysis
