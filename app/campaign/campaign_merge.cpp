#include "app/campaign/campaign_merge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <vector>

#include "report/json_fields.h"

namespace emutrace::app {
namespace {

using report::count_at;
using report::text_at;

// Whether the cases ran more than one firmware: then a function is named with its firmware.
bool several_firmware(const MergedResults& r) {
    std::set<std::string> firmware;
    for (const auto& [key, t] : r.functions) firmware.insert(key.firmware);
    for (const auto& [key, t] : r.wcet) firmware.insert(key.firmware);
    return firmware.size() > 1;
}

// Counts near 2^64 (a mistyped or hostile result) stay at the top instead of wrapping to a small
// sum that reads as a real one.
template <typename Count>
void sum(Count& into, Count more) {
    into = more > std::numeric_limits<Count>::max() - into ? std::numeric_limits<Count>::max() : into + more;
}

double rate(std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

const nlohmann::json* object_at(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? &*it : nullptr;
}

template <typename Set>
void insert_strings(Set& into, const nlohmann::json& j, const char* key) {
    if (auto it = j.find(key); it != j.end() && it->is_array())
        for (const auto& v : *it)
            if (v.is_string()) into.insert(v.get<std::string>());
}

CoverageTotals coverage_of(const nlohmann::json& c) {
    CoverageTotals t;
    t.cases = 1;
    t.blocks_defined = count_at(c, "blocks_defined");
    insert_strings(t.functions_defined, c, "functions_defined");
    insert_strings(t.functions_executed, c, "functions_executed");
    if (auto it = c.find("blocks_executed"); it != c.end() && it->is_array())
        for (const auto& v : *it)
            if (v.is_number_unsigned() && v.get<std::uint64_t>() <= UINT32_MAX) t.blocks_executed.insert(v.get<std::uint32_t>());
    return t;
}

SamplerTotals sampler_of(const nlohmann::json& s, const std::string& case_id) {
    SamplerTotals t;
    t.cases = 1;
    t.samples = count_at(s, "samples");
    t.checked = count_at(s, "intervals_checked");
    t.correct = count_at(s, "correct");
    t.unique_unchecked = count_at(s, "unique_unchecked");
    t.ambiguous = count_at(s, "ambiguous");
    t.wrong = count_at(s, "wrong");
    t.impossible = count_at(s, "impossible");
    t.left_out = count_at(s, "left_out");
    if (t.wrong + t.impossible) t.most_wrong = {t.wrong + t.impossible, case_id};
    return t;
}

ReplayTotals replay_of(const nlohmann::json& p, const std::string& case_id) {
    ReplayTotals t;
    if (text_at(p, "mode") == "record") {
        t.recordings = 1;
        t.recorded_events = count_at(p, "events");
        return t;
    }
    t.replays = 1;
    t.events = count_at(p, "events");
    t.events_reproduced = count_at(p, "reproduced");
    auto divergence = p.find("divergence");
    const bool reproduced = (divergence == p.end() || divergence->is_null()) && t.events_reproduced == t.events;
    t.reproduced = reproduced;
    auto order = p.find("same_global_order");
    t.same_global_order = order != p.end() && order->is_boolean() && order->get<bool>();
    if (!reproduced) t.diverged.insert(case_id);
    return t;
}

void add(ConstraintTotals& a, const ConstraintTotals& b) {
    a.limit_cycles = std::max(a.limit_cycles, b.limit_cycles);
    a.smallest_limit_cycles = std::min(a.smallest_limit_cycles, b.smallest_limit_cycles);
    sum(a.occurrences, b.occurrences);
    sum(a.violations, b.violations);
    sum(a.total_cycles, b.total_cycles);
    a.min_cycles = std::min(a.min_cycles, b.min_cycles);
    a.max.keep_larger(b.max);
    a.failed.insert(b.failed.begin(), b.failed.end());
}

void add(FunctionTotals& a, const FunctionTotals& b) {
    sum(a.calls, b.calls);
    sum(a.inclusive_cycles, b.inclusive_cycles);
    sum(a.exclusive_cycles, b.exclusive_cycles);
    a.inclusive_min = std::min(a.inclusive_min, b.inclusive_min);
    a.exclusive_min = std::min(a.exclusive_min, b.exclusive_min);
    a.inclusive_max = std::max(a.inclusive_max, b.inclusive_max);
    a.exclusive_max = std::max(a.exclusive_max, b.exclusive_max);
}

void add(WcetTotals& a, const WcetTotals& b) {
    sum(a.runs, b.runs);
    a.observed.keep_larger(b.observed);
    a.bound.keep_larger(b.bound);
}

void add(CoverageTotals& a, const CoverageTotals& b) {
    sum(a.cases, b.cases);
    a.blocks_defined = std::max(a.blocks_defined, b.blocks_defined);
    a.functions_defined.insert(b.functions_defined.begin(), b.functions_defined.end());
    a.functions_executed.insert(b.functions_executed.begin(), b.functions_executed.end());
    a.blocks_executed.insert(b.blocks_executed.begin(), b.blocks_executed.end());
}

// Adds each of b's `counts` to a's.
template <typename T, typename... Count>
void add_counts(T& a, const T& b, Count... counts) {
    (sum(a.*counts, b.*counts), ...);
}

void add(SamplerTotals& a, const SamplerTotals& b) {
    using S = SamplerTotals;
    add_counts(a, b, &S::cases, &S::samples, &S::checked, &S::correct, &S::unique_unchecked, &S::ambiguous, &S::wrong, &S::impossible, &S::left_out);
    a.most_wrong.keep_larger(b.most_wrong);
}

void add(ReplayTotals& a, const ReplayTotals& b) {
    using R = ReplayTotals;
    add_counts(a, b, &R::replays, &R::reproduced, &R::same_global_order, &R::events, &R::events_reproduced, &R::recordings, &R::recorded_events);
    a.diverged.insert(b.diverged.begin(), b.diverged.end());
}

template <typename Map>
void add_all(Map& into, const Map& from) {
    for (const auto& [key, value] : from) add(into[key], value);
}

}  // namespace

std::string FirmwareFunction::label(bool several) const {
    return several ? function + " (" + std::filesystem::path(firmware).filename().string() + ")" : function;
}

MergedResults case_results(const nlohmann::json& result, int status, const std::string& case_id) {
    MergedResults r;
    r.cases = 1;
    r.statuses[status] = 1;
    // A case passes when its run exited 0 and wrote a result that says 0: a missing, damaged or
    // mistyped result.json is no evidence of a pass.
    const auto said = result.is_object() ? result.find("status") : result.end();
    const bool result_passed = result.is_object() && said != result.end() && said->is_number_integer() && *said == 0;
    if (status != 0 || !result_passed) r.not_passed.insert(case_id);
    if (!result.is_object()) return r;
    r.instructions = count_at(result, "instructions");
    r.cycles = count_at(result, "cycles");
    const std::string firmware = text_at(result, "firmware");
    if (auto ct = result.find("calltrace"); ct != result.end() && ct->is_object()) {
        for (const auto& k : ct->value("constraints", nlohmann::json::array())) {
            ConstraintTotals t;
            t.limit_cycles = t.smallest_limit_cycles = count_at(k, "limit_cycles");
            t.occurrences = count_at(k, "occurrences");
            t.violations = count_at(k, "violation_count");
            // The case's total: its mean over its occurrences, in whole cycles (the durations are).
            const double total = std::round(k.value("mean_cycles", 0.0) * static_cast<double>(t.occurrences));
            t.total_cycles = total >= 0x1p64 ? UINT64_MAX : total > 0 ? static_cast<std::uint64_t>(total) : 0;
            if (t.occurrences) t.min_cycles = count_at(k, "min_cycles");
            if (t.occurrences) t.max = {count_at(k, "max_cycles"), case_id};
            if (t.violations) t.failed.insert(case_id);
            add(r.constraints[k.value("name", "")], t);
        }
        for (const auto& f : ct->value("functions", nlohmann::json::array())) {
            FunctionTotals t{count_at(f, "calls"),         count_at(f, "inclusive_cycles"), count_at(f, "exclusive_cycles"),
                             count_at(f, "inclusive_min"), count_at(f, "exclusive_min"),    count_at(f, "inclusive_max"),
                             count_at(f, "exclusive_max")};
            add(r.functions[{firmware, f.value("function", "")}], t);
        }
    }
    if (auto w = result.find("wcet"); w != result.end() && w->is_object() && w->contains("function")) {
        WcetTotals t;
        t.runs = count_at(*w, "observed_runs");
        t.observed = {count_at(*w, "observed_max_cycles"), case_id};
        t.bound = {count_at(*w, "bound_cycles"), case_id};
        add(r.wcet[{firmware, (*w)["function"].is_string() ? (*w)["function"].get<std::string>() : "?"}], t);
    }
    if (const nlohmann::json* c = object_at(result, "coverage")) add(r.coverage[text_at(*c, "firmware")], coverage_of(*c));
    if (const nlohmann::json* s = object_at(result, "sampler"))
        add(r.sampler[text_at(*s, "function") + ": " + text_at(*s, "scheme")], sampler_of(*s, case_id));
    if (const nlohmann::json* p = object_at(result, "replay")) add(r.replay, replay_of(*p, case_id));
    return r;
}

MergedResults merge(const MergedResults& a, const MergedResults& b) {
    MergedResults r = a;
    sum(r.cases, b.cases);
    sum(r.instructions, b.instructions);
    sum(r.cycles, b.cycles);
    for (const auto& [status, n] : b.statuses) sum(r.statuses[status], n);
    r.not_passed.insert(b.not_passed.begin(), b.not_passed.end());
    add_all(r.constraints, b.constraints);
    add_all(r.functions, b.functions);
    add_all(r.wcet, b.wcet);
    add_all(r.coverage, b.coverage);
    add_all(r.sampler, b.sampler);
    add(r.replay, b.replay);
    return r;
}

namespace {

using nlohmann::json;

json constraints_json(const MergedResults& r) {
    json constraints = json::array();
    for (const auto& [name, t] : r.constraints)
        constraints.push_back({{"name", name},
                               {"limit_cycles", t.limit_cycles},
                               {"smallest_limit_cycles", t.occurrences ? t.smallest_limit_cycles : t.limit_cycles},
                               {"occurrences", t.occurrences},
                               {"violation_count", t.violations},
                               {"min_cycles", t.occurrences ? t.min_cycles : 0},
                               {"mean_cycles", t.occurrences ? static_cast<double>(t.total_cycles) / static_cast<double>(t.occurrences) : 0.0},
                               {"max_cycles", t.max.value},
                               {"max_case", t.max.case_id},
                               {"failed_cases", t.failed},
                               {"passed", t.violations == 0}});
    return constraints;
}

json functions_json(const MergedResults& r) {
    json functions = json::array();
    for (const auto& [key, t] : r.functions)
        functions.push_back({{"function", key.function},
                             {"firmware", key.firmware},
                             {"calls", t.calls},
                             {"inclusive_cycles", t.inclusive_cycles},
                             {"exclusive_cycles", t.exclusive_cycles},
                             {"inclusive_min", t.calls ? t.inclusive_min : 0},
                             {"inclusive_max", t.inclusive_max},
                             {"exclusive_min", t.calls ? t.exclusive_min : 0},
                             {"exclusive_max", t.exclusive_max}});
    return functions;
}

json wcet_json(const MergedResults& r) {
    json wcet = json::array();
    for (const auto& [key, t] : r.wcet)
        wcet.push_back({{"function", key.function},
                        {"firmware", key.firmware},
                        {"runs", t.runs},
                        {"observed_max_cycles", t.observed.value},
                        {"observed_max_case", t.observed.case_id},
                        {"bound_max_cycles", t.bound.value},
                        {"bound_max_case", t.bound.case_id}});
    return wcet;
}

json coverage_json(const MergedResults& r) {
    json coverage = json::array();
    for (const auto& [firmware, t] : r.coverage) {
        std::vector<std::string> never;
        std::set_difference(t.functions_defined.begin(), t.functions_defined.end(), t.functions_executed.begin(), t.functions_executed.end(),
                            std::back_inserter(never));
        coverage.push_back({{"firmware", firmware},
                            {"cases", t.cases},
                            {"functions_defined", t.functions_defined.size()},
                            {"functions_executed", t.functions_executed.size()},
                            {"function_rate", rate(t.functions_executed.size(), t.functions_defined.size())},
                            {"functions_never_executed", never},
                            {"blocks_defined", t.blocks_defined},
                            {"blocks_executed", t.blocks_executed.size()},
                            {"block_rate", rate(t.blocks_executed.size(), t.blocks_defined)}});
    }
    return coverage;
}

json sampler_json(const MergedResults& r) {
    json sampler = json::array();
    for (const auto& [name, t] : r.sampler)
        sampler.push_back({{"sampler", name},
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
    return sampler;
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

std::string constraints_lines(const MergedResults& r) {
    if (r.constraints.empty()) return {};
    char line[256];
    std::snprintf(line, sizeof line, "  %-26s %10s %10s %15s %12s %12s  %s\n", "constraint", "count", "violated", "limit (cycles)", "mean", "max",
                  "worst case");
    std::string out = line;
    for (const auto& [name, t] : r.constraints) {
        // Cases at other clocks have other limits in cycles: then the range.
        std::string limit = std::to_string(t.limit_cycles);
        if (t.smallest_limit_cycles < t.limit_cycles) limit = std::to_string(t.smallest_limit_cycles) + "-" + limit;
        std::snprintf(line, sizeof line, "  %-26s %10llu %10llu %15s %12.1f %12llu  %s\n", name.substr(0, 26).c_str(),
                      static_cast<unsigned long long>(t.occurrences), static_cast<unsigned long long>(t.violations), limit.c_str(),
                      t.occurrences ? static_cast<double>(t.total_cycles) / static_cast<double>(t.occurrences) : 0.0,
                      static_cast<unsigned long long>(t.max.value), t.max.case_id.c_str());
        out += line;
    }
    return out;
}

std::string functions_lines(const MergedResults& r, bool several, std::size_t top_functions) {
    if (r.functions.empty()) return {};
    std::vector<std::pair<FirmwareFunction, FunctionTotals>> by_cycles(r.functions.begin(), r.functions.end());
    std::sort(by_cycles.begin(), by_cycles.end(), [](const auto& a, const auto& b) {
        return a.second.exclusive_cycles != b.second.exclusive_cycles ? a.second.exclusive_cycles > b.second.exclusive_cycles : a.first < b.first;
    });
    char line[256];
    std::snprintf(line, sizeof line, "  %-30s %12s %16s %14s\n", "function (all cases)", "calls", "exclusive cycles", "excl max");
    std::string out = line;
    for (std::size_t i = 0; i < by_cycles.size() && i < top_functions; ++i) {
        const auto& [key, t] = by_cycles[i];
        std::snprintf(line, sizeof line, "  %-30s %12llu %16llu %14llu\n", key.label(several).substr(0, 30).c_str(),
                      static_cast<unsigned long long>(t.calls), static_cast<unsigned long long>(t.exclusive_cycles),
                      static_cast<unsigned long long>(t.exclusive_max));
        out += line;
    }
    return out;
}

// WCET, coverage and sampler: a line per function, firmware or configuration.
std::string measured_lines(const MergedResults& r, bool several) {
    char line[512];
    std::string out;
    for (const auto& [key, t] : r.wcet) {
        std::snprintf(line, sizeof line, "  WCET of %s: largest bound %llu cycles (%s), longest of %llu runs %llu cycles (%s)\n",
                      key.label(several).c_str(), static_cast<unsigned long long>(t.bound.value), t.bound.case_id.c_str(),
                      static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(t.observed.value), t.observed.case_id.c_str());
        out += line;
    }
    for (const auto& [firmware, t] : r.coverage) {
        std::snprintf(line, sizeof line, "  coverage of %s over %llu cases: %zu of %zu functions (%.1f%%), %zu of %llu basic blocks (%.1f%%)\n",
                      firmware.c_str(), static_cast<unsigned long long>(t.cases), t.functions_executed.size(), t.functions_defined.size(),
                      100 * rate(t.functions_executed.size(), t.functions_defined.size()), t.blocks_executed.size(),
                      static_cast<unsigned long long>(t.blocks_defined), 100 * rate(t.blocks_executed.size(), t.blocks_defined));
        out += line;
    }
    for (const auto& [name, t] : r.sampler) {
        std::snprintf(
            line, sizeof line, "  sampler %s over %llu cases: %llu of %llu intervals reconstructed (%.2f%%), %llu wrong or impossible%s%s\n",
            name.c_str(), static_cast<unsigned long long>(t.cases), static_cast<unsigned long long>(t.correct),
            static_cast<unsigned long long>(t.checked), 100 * rate(t.correct, t.checked), static_cast<unsigned long long>(t.wrong + t.impossible),
            t.most_wrong.case_id.empty() ? "" : ", most in ", t.most_wrong.case_id.c_str());
        out += line;
    }
    return out;
}

std::string replay_lines(const MergedResults& r) {
    char line[256];
    std::string out;
    if (r.replay.replays) {
        std::snprintf(line, sizeof line, "  replay        %llu of %llu replays reproduced their log (%llu in the same global order)%s\n",
                      static_cast<unsigned long long>(r.replay.reproduced), static_cast<unsigned long long>(r.replay.replays),
                      static_cast<unsigned long long>(r.replay.same_global_order), r.replay.diverged.empty() ? "" : "; diverged:");
        out += line;
        std::size_t shown = 0;
        for (const auto& id : r.replay.diverged) {
            if (++shown > 10) {
                out += "    ... " + std::to_string(r.replay.diverged.size() - 10) + " more\n";
                break;
            }
            out += "    " + id + "\n";
        }
    }
    if (r.replay.recordings) {
        std::snprintf(line, sizeof line, "  recordings    %llu, %llu events\n", static_cast<unsigned long long>(r.replay.recordings),
                      static_cast<unsigned long long>(r.replay.recorded_events));
        out += line;
    }
    return out;
}

}  // namespace

nlohmann::json to_json(const MergedResults& r) {
    json statuses = json::object();
    for (const auto& [status, n] : r.statuses) statuses[std::to_string(status)] = n;
    json out{{"cases", r.cases},
             {"statuses", statuses},
             {"not_passed", r.not_passed},
             {"instructions", r.instructions},
             {"cycles", r.cycles},
             {"constraints", constraints_json(r)},
             {"functions", functions_json(r)},
             {"wcet", wcet_json(r)}};
    if (!r.coverage.empty()) out["coverage"] = coverage_json(r);
    if (!r.sampler.empty()) out["sampler"] = sampler_json(r);
    if (r.replay.replays || r.replay.recordings)
        out["replay"] = {{"replays", r.replay.replays},         {"reproduced", r.replay.reproduced},
                         {"diverged_cases", r.replay.diverged}, {"same_global_order", r.replay.same_global_order},
                         {"events", r.replay.events},           {"events_reproduced", r.replay.events_reproduced},
                         {"recordings", r.replay.recordings},   {"recorded_events", r.replay.recorded_events}};
    return out;
}

std::string summary(const MergedResults& r, std::size_t top_functions) {
    const bool several = several_firmware(r);
    return statuses_lines(r) + constraints_lines(r) + functions_lines(r, several, top_functions) + measured_lines(r, several) + replay_lines(r);
}

}  // namespace emutrace::app
