#include "app/campaign/campaign_merge.h"

#include <cstdio>

#include "analysis/campaign_totals.h"
#include "report/json_fields.h"

namespace emutrace::app {
namespace {

// Counts near 2^64 (a mistyped or hostile result) stay at the top, as the analyses' totals do.
using analysis::saturating_add;

void copy_totals(std::map<std::size_t, MergedResults::Totals>& into, const std::map<std::size_t, MergedResults::Totals>& from) {
    into.clear();
    for (const auto& [index, t] : from) into[index] = {t.analysis, t.totals->copy()};
}

std::string statuses_lines(const MergedResults& r) {
    char line[256];
    std::uint64_t passed = r.statuses.count(0) ? r.statuses.at(0) : 0;
    std::snprintf(line, sizeof line, "  cases         %llu: %llu passed, %llu did not\n", static_cast<unsigned long long>(r.cases),
                  static_cast<unsigned long long>(passed), static_cast<unsigned long long>(r.cases - passed));
    std::string out = line;
    for (const auto& [status, n] : r.statuses)
        if (status != 0) {
            std::snprintf(line, sizeof line, "    exit status %d: %llu\n", status, static_cast<unsigned long long>(n));
            out += line;
        }
    return out;
}

}  // namespace

MergedResults::MergedResults(const MergedResults& other)
    : cases(other.cases), instructions(other.instructions), cycles(other.cycles), statuses(other.statuses), not_passed(other.not_passed) {
    copy_totals(analyses, other.analyses);
}

MergedResults& MergedResults::operator=(const MergedResults& other) {
    if (this == &other) return *this;
    cases = other.cases;
    instructions = other.instructions;
    cycles = other.cycles;
    statuses = other.statuses;
    not_passed = other.not_passed;
    copy_totals(analyses, other.analyses);
    return *this;
}

bool MergedResults::operator==(const MergedResults& other) const {
    return to_json(*this) == to_json(other);
}

MergedResults case_results(const AnalysisRegistry& registry, const nlohmann::json& result, const emutrace::CampaignCase& c) {
    MergedResults r;
    r.cases = 1;
    r.statuses[c.status] = 1;
    // A case passes when its run exited 0 and wrote a result that says 0: a missing, damaged or
    // mistyped result.json is no evidence of a pass.
    const auto said = result.is_object() ? result.find("status") : result.end();
    const bool result_passed = result.is_object() && said != result.end() && said->is_number_integer() && *said == 0;
    if (c.status != 0 || !result_passed) r.not_passed.insert(c.id);
    for (std::size_t i = 0; i < registry.types().size(); ++i) {
        const AnalysisType& type = registry.types()[i];
        if (!type.campaign.totals) continue;
        MergedResults::Totals& t = r.analyses[i] = {type.name, type.campaign.totals()};
        if (!result.is_object()) continue;
        auto part = result.find(type.name);
        if (part == result.end() || !part->is_object()) continue;
        if (auto* parsed = dynamic_cast<analysis::ParsedCaseTotals*>(t.totals.get()))
            parsed->add_parsed_case(c, *part);
        else
            t.totals->add_case(c, part->dump());
    }
    if (!result.is_object()) return r;
    r.instructions = report::count_at(result, "instructions");
    r.cycles = report::count_at(result, "cycles");
    return r;
}

MergedResults merge(const MergedResults& a, const MergedResults& b) {
    MergedResults r = a;
    merge_into(r, b);
    return r;
}

void merge_into(MergedResults& r, const MergedResults& b) {
    saturating_add(r.cases, b.cases);
    saturating_add(r.instructions, b.instructions);
    saturating_add(r.cycles, b.cycles);
    for (const auto& [status, n] : b.statuses) saturating_add(r.statuses[status], n);
    r.not_passed.insert(b.not_passed.begin(), b.not_passed.end());
    for (const auto& [index, t] : b.analyses) {
        auto it = r.analyses.find(index);
        if (it == r.analyses.end())
            r.analyses[index] = {t.analysis, t.totals->copy()};
        else
            it->second.totals->merge(*t.totals);
    }
}

nlohmann::json to_json(const MergedResults& r) {
    nlohmann::json statuses = nlohmann::json::object();
    for (const auto& [status, n] : r.statuses) statuses[std::to_string(status)] = n;
    nlohmann::json out{
        {"cases", r.cases}, {"statuses", statuses}, {"not_passed", r.not_passed}, {"instructions", r.instructions}, {"cycles", r.cycles}};
    for (const auto& [index, t] : r.analyses) {
        nlohmann::json part = nlohmann::json::parse(t.totals->json(), nullptr, false);
        if (!part.is_object()) continue;  // an analysis's own bug: its totals are left out, the rest stands
        for (auto& [key, value] : part.items()) out[key] = std::move(value);
    }
    return out;
}

std::string summary(const MergedResults& r, bool brief) {
    std::string out = statuses_lines(r);
    for (const auto& [index, t] : r.analyses) out += t.totals->summary(brief);
    return out;
}

}  // namespace emutrace::app
