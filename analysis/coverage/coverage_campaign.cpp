// Coverage over a campaign's cases: per firmware, the functions and basic blocks that ran in any
// case, and those that never did.
#include "analysis/coverage/coverage_campaign.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

#include "analysis/campaign_totals.h"
#include "report/bar_chart.h"
#include "report/html.h"
#include "report/json_fields.h"

namespace emutrace::analysis {
namespace {

using nlohmann::json;
using report::count_at;
using report::text_at;
using report::thousands;

constexpr std::size_t kNamesShown = 50;

template <typename Set>
void insert_strings(Set& into, const json& j, const char* key) {
    if (auto it = j.find(key); it != j.end() && it->is_array())
        for (const auto& v : *it)
            if (v.is_string()) into.insert(v.get<std::string>());
}

/// One firmware over the cases that measured it.
struct FirmwareCoverage {
    std::uint64_t cases = 0, blocks_defined = 0;
    std::set<std::string> functions_defined, functions_executed;
    std::set<std::uint32_t> blocks_executed;  ///< basic blocks by start address

    void add(const FirmwareCoverage& b) {
        saturating_add(cases, b.cases);
        blocks_defined = std::max(blocks_defined, b.blocks_defined);
        functions_defined.insert(b.functions_defined.begin(), b.functions_defined.end());
        functions_executed.insert(b.functions_executed.begin(), b.functions_executed.end());
        blocks_executed.insert(b.blocks_executed.begin(), b.blocks_executed.end());
    }
};

struct CoverageTotals {
    std::map<std::string, FirmwareCoverage> firmware;  ///< by firmware

    void add_case(const CampaignCase&, const json& c) {
        FirmwareCoverage t;
        t.cases = 1;
        t.blocks_defined = count_at(c, "blocks_defined");
        insert_strings(t.functions_defined, c, "functions_defined");
        insert_strings(t.functions_executed, c, "functions_executed");
        if (auto it = c.find("blocks_executed"); it != c.end() && it->is_array())
            for (const auto& v : *it)
                if (v.is_number_unsigned() && v.get<std::uint64_t>() <= UINT32_MAX) t.blocks_executed.insert(v.get<std::uint32_t>());
        firmware[text_at(c, "firmware")].add(t);
    }
    void merge(const CoverageTotals& b) {
        for (const auto& [elf, t] : b.firmware) firmware[elf].add(t);
    }
    json to_json() const {
        if (firmware.empty()) return json::object();
        json list = json::array();
        for (const auto& [elf, t] : firmware) {
            std::vector<std::string> never;
            std::set_difference(t.functions_defined.begin(), t.functions_defined.end(), t.functions_executed.begin(), t.functions_executed.end(),
                                std::back_inserter(never));
            list.push_back({{"firmware", elf},
                            {"cases", t.cases},
                            {"functions_defined", t.functions_defined.size()},
                            {"functions_executed", t.functions_executed.size()},
                            {"function_rate", rate(t.functions_executed.size(), t.functions_defined.size())},
                            {"functions_never_executed", never},
                            {"blocks_defined", t.blocks_defined},
                            {"blocks_executed", t.blocks_executed.size()},
                            {"block_rate", rate(t.blocks_executed.size(), t.blocks_defined)}});
        }
        return {{"coverage", list}};
    }
    std::string summary(bool) const {
        std::string out;
        char line[512];
        for (const auto& [elf, t] : firmware) {
            std::snprintf(line, sizeof line, "  coverage of %s over %llu cases: %zu of %zu functions (%.1f%%), %zu of %llu basic blocks (%.1f%%)\n",
                          elf.c_str(), static_cast<unsigned long long>(t.cases), t.functions_executed.size(), t.functions_defined.size(),
                          100 * rate(t.functions_executed.size(), t.functions_defined.size()), t.blocks_executed.size(),
                          static_cast<unsigned long long>(t.blocks_defined), 100 * rate(t.blocks_executed.size(), t.blocks_defined));
            out += line;
        }
        return out;
    }
};

std::string never_run(const json& c) {
    const json& names = member(c, "functions_never_executed");
    if (!names.is_array() || names.empty()) return {};
    std::string out = "<p>Never run in any case, in " + report::escape(text_at(c, "firmware")) + ": ";
    std::size_t shown = 0;
    for (const auto& n : names)
        if (n.is_string() && shown++ < kNamesShown)
            out += std::string(shown > 1 ? ", " : "") + "<code>" + report::escape(n.get<std::string>()) + "</code>";
    if (names.size() > kNamesShown) out += " &hellip; and " + thousands(names.size() - kNamesShown) + " more";
    return out + ".</p>\n";
}

std::string coverage_report(const json& merged) {
    const json& list = member(member(merged, "overall"), "coverage");
    if (!list.is_array() || list.empty()) return {};
    report::Table t;
    t.headers = {"firmware", "cases", "functions run", "of", "", "basic blocks run", "of", ""};
    t.numeric = {false, true, true, true, true, true, true, true};
    std::string never;
    for (const auto& c : list) {
        t.rows.push_back({report::escape(text_at(c, "firmware")), thousands(count_at(c, "cases")), thousands(count_at(c, "functions_executed")),
                          thousands(count_at(c, "functions_defined")), report::percent(report::number_at(c, "function_rate")),
                          thousands(count_at(c, "blocks_executed")), thousands(count_at(c, "blocks_defined")),
                          report::percent(report::number_at(c, "block_rate"))});
        t.row_classes.push_back("coverage");
        never += never_run(c);
    }
    return report::section("coverage", "Coverage over all cases", t.html() + never);
}

}  // namespace

CampaignMerge coverage_campaign() {
    return campaign_merge_of<CoverageTotals>(&coverage_report);
}

}  // namespace emutrace::analysis
