// WCET over a campaign's cases: the largest bound any case gave and the longest run any case
// measured, per firmware and function; and for each run entry one bound over all of its runs,
// from the statistics every case saved (`emutrace wcet --no-run --stats-in ...`, where
// StatisticsTable::merge is the algebra), with the case whose run came closest to it.
#include "analysis/wcet/wcet_campaign.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/campaign_totals.h"
#include "config/input_file.h"
#include "report/bar_chart.h"
#include "report/html.h"
#include "report/json_fields.h"

namespace emutrace::analysis {
namespace {

using nlohmann::json;
using report::count_at;
using report::text_at;
using report::thousands;

struct FunctionBounds {
    std::uint64_t runs = 0;
    Extreme observed, bound;  ///< the longest run measured and the largest bound, with their cases
};

// A result file another process wrote, or null when it is missing or unreadable.
json read_result(const std::string& path) {
    try {
        return json::parse(config::read_input(path, "WCET result", std::size_t{64} << 20), nullptr, false);
    } catch (const std::exception&) {
        return nullptr;
    }
}

struct WcetTotals {
    std::map<std::pair<std::string, std::string>, FunctionBounds> functions;  ///< by firmware and function
    /// What the run entry's cases saved for one bound over all of them: their statistics files.
    std::set<std::string> stats;
    std::string firmware, scenario, function;
    json all_runs;  ///< finish()'s bound over all of them; null before

    void add_case(const CampaignCase& c, const json& w) {
        if (!w.contains("function")) return;
        FunctionBounds& f = functions[{c.firmware, w["function"].is_string() ? w["function"].get<std::string>() : "?"}];
        saturating_add(f.runs, count_at(w, "observed_runs"));
        f.observed.keep_larger({count_at(w, "observed_max_cycles"), c.id});
        f.bound.keep_larger({count_at(w, "bound_cycles"), c.id});
        if (!std::filesystem::exists(c.dir + "/wcet_stats.json")) return;
        stats.insert(c.dir + "/wcet_stats.json");
        firmware = c.firmware;
        scenario = c.scenario;
        function = text_at(w, "function");
    }
    void merge(const WcetTotals& b) {
        for (const auto& [key, t] : b.functions) {
            FunctionBounds& f = functions[key];
            saturating_add(f.runs, t.runs);
            f.observed.keep_larger(t.observed);
            f.bound.keep_larger(t.bound);
        }
        stats.insert(b.stats.begin(), b.stats.end());
        if (firmware.empty()) {
            firmware = b.firmware;
            scenario = b.scenario;
            function = b.function;
        }
    }
    json to_json() const {
        json list = json::array();
        for (const auto& [key, t] : functions)
            list.push_back({{"function", key.second},
                            {"firmware", key.first},
                            {"runs", t.runs},
                            {"observed_max_cycles", t.observed.value},
                            {"observed_max_case", t.observed.case_id},
                            {"bound_max_cycles", t.bound.value},
                            {"bound_max_case", t.bound.case_id}});
        json j = {{"wcet", list}};
        if (!all_runs.is_null()) j["wcet_all_runs"] = all_runs;
        return j;
    }
    std::string summary(bool brief) const;
    std::string finish(const CampaignRunEntry& entry);
};

std::string WcetTotals::summary(bool) const {
    std::set<std::string> firmware_seen;
    for (const auto& [key, t] : functions) firmware_seen.insert(key.first);
    std::string out;
    char line[512];
    for (const auto& [key, t] : functions) {
        const std::string name = function_label(key.first, key.second, firmware_seen.size() > 1);
        std::snprintf(line, sizeof line, "  WCET of %s: largest bound %llu cycles (%s), longest of %llu runs %llu cycles (%s)\n", name.c_str(),
                      static_cast<unsigned long long>(t.bound.value), t.bound.case_id.c_str(), static_cast<unsigned long long>(t.runs),
                      static_cast<unsigned long long>(t.observed.value), t.observed.case_id.c_str());
        out += line;
    }
    return out;
}

std::string WcetTotals::finish(const CampaignRunEntry& entry) {
    if (stats.empty() || firmware.empty() || function.empty()) return {};
    const std::string out = entry.output_prefix("wcet");
    std::vector<std::string> argv{"wcet", firmware, "-f", function, "--no-run", "--json", out + ".json"};
    if (!scenario.empty()) argv.insert(argv.end(), {"-s", scenario});
    for (const auto& s : stats) argv.insert(argv.end(), {"--stats-in", s});
    const int status = entry.run_emutrace(argv, out);
    json bound = read_result(out + ".json");
    all_runs = {{"function", function}, {"firmware", firmware}, {"runs_of_cases", stats.size()}, {"status", status}, {"report", out + ".json"}};
    for (const auto& [key, t] : functions)  // the run entry's own cases: one firmware, so the function names it
        if (key.second == function) all_runs["closest_case"] = t.observed.case_id;
    if (!bound.is_object())
        return "  WCET over the runs of " + entry.name() + ": not bounded (exit status " + std::to_string(status) + ", see " + out + ".json)\n";
    all_runs["bound_cycles"] = count_at(bound, "bound_cycles");
    all_runs["observed_max_cycles"] = count_at(bound, "observed_max_cycles");
    all_runs["observed_runs"] = count_at(bound, "observed_runs");
    char line[512];
    std::snprintf(line, sizeof line, "  WCET of %s over the %llu runs of %s: bound %llu cycles; longest run %llu cycles (%s)\n", function.c_str(),
                  static_cast<unsigned long long>(count_at(bound, "observed_runs")), entry.name().c_str(),
                  static_cast<unsigned long long>(count_at(bound, "bound_cycles")),
                  static_cast<unsigned long long>(count_at(bound, "observed_max_cycles")), text_at(all_runs, "closest_case").c_str());
    return line;
}

std::string bars_of(const json& w) {
    std::vector<report::Bar> bars = {{"largest bound of a case",
                                      static_cast<double>(count_at(w, "bound_max_cycles")),
                                      thousands(count_at(w, "bound_max_cycles")) + " (" + text_at(w, "bound_max_case") + ")",
                                      {},
                                      false},
                                     {"longest observed run",
                                      static_cast<double>(count_at(w, "observed_max_cycles")),
                                      thousands(count_at(w, "observed_max_cycles")) + " (" + text_at(w, "observed_max_case") + ")",
                                      {},
                                      count_at(w, "observed_max_cycles") > count_at(w, "bound_max_cycles")}};
    return "<h3>" + report::escape(text_at(w, "function")) + " over " + thousands(count_at(w, "runs")) + " runs</h3>\n" +
           report::horizontal_bars(bars, "Cycles; each case bounds its own runs");
}

std::string all_runs_bars(const std::string& group, const json& all) {
    std::vector<report::Bar> bars = {
        {"bound over every case's runs", static_cast<double>(count_at(all, "bound_cycles")), thousands(count_at(all, "bound_cycles")), {}, false},
        {"longest observed run",
         static_cast<double>(count_at(all, "observed_max_cycles")),
         thousands(count_at(all, "observed_max_cycles")),
         {},
         false}};
    return "<h3>" + report::escape(text_at(all, "function")) + " in " + report::escape(group) + ", one bound from the merged statistics</h3>\n" +
           report::horizontal_bars(bars, "IPET over the loop-context statistics of all " + thousands(count_at(all, "observed_runs")) +
                                             " runs (closest case: " + text_at(all, "closest_case") + ")");
}

std::string wcet_report(const json& m) {
    std::string body;
    const json& list = member(member(m, "overall"), "wcet");
    if (list.is_array())
        for (const auto& w : list) body += bars_of(w);
    if (member(m, "runs").is_object())
        for (const auto& [group, r] : m["runs"].items()) {
            const json& all = member(r, "wcet_all_runs");
            if (all.is_object() && all.contains("bound_cycles")) body += all_runs_bars(group, all);
        }
    return body.empty() ? std::string() : report::section("wcet", "WCET over all cases", body);
}

}  // namespace

CampaignMerge wcet_campaign() {
    CampaignMerge merge = campaign_merge_of<WcetTotals>(&wcet_report);
    merge.case_outputs = {"wcet_stats"};
    return merge;
}

}  // namespace emutrace::analysis
