// emutrace campaign FILE: every case of a campaign on this machine, N at a time, resumable, and
// one merged answer (docs/campaign.md).
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "app/campaign/campaign_engine.h"
#include "app/campaign/campaign_file.h"
#include "app/campaign/campaign_merge.h"
#include "app/campaign/campaign_report.h"
#include "app/campaign/slurm_engine.h"
#include "app/commands.h"
#include "config/input_file.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "emutrace/config_error.h"
#include "report/json_fields.h"
#include "session/junit_report.h"

namespace emutrace::app {
namespace {

namespace fs = std::filesystem;

// A case's result.json, or null when it is missing or cannot be read as one (a folder, a FIFO,
// a file past 64 MiB): the merge counts such a case as not passed, it does not fail.
nlohmann::json read_result(const std::string& path) {
    try {
        return nlohmann::json::parse(config::read_input(path, "case result", std::size_t{64} << 20), nullptr, false, true);
    } catch (const ConfigError&) {
        return nullptr;
    }
}

std::string settings_text(const CampaignCase& k) {
    std::string s;
    for (const auto& [path, value] : k.settings) s += (s.empty() ? "" : " ") + path + "=" + value;
    return s;
}

// One JUnit test case per (case, constraint), and one for a case that did not run to its end.
void add_test_cases(std::vector<TestCase>& out, const CampaignCase& k, const nlohmann::json& result, int status, const std::string& dir) {
    const std::string label = k.id() + " " + k.group + (k.settings.empty() ? "" : " [" + settings_text(k) + "]");
    bool any = false;
    if (result.is_object() && result.contains("calltrace"))
        for (const auto& c : result["calltrace"].value("constraints", nlohmann::json::array())) {
            TestCase t;
            t.classname = "emutrace.campaign";
            t.name = label + ": " + c.value("name", "");
            std::uint64_t violations = c.value("violation_count", std::uint64_t{0});
            if (violations) t.failure = std::to_string(violations) + " of " + std::to_string(c.value("occurrences", 0)) + " occurrences violated";
            t.output = "max " + std::to_string(c.value("max_cycles", 0)) + " cycles, limit " + std::to_string(c.value("limit_cycles", 0));
            out.push_back(std::move(t));
            any = true;
        }
    if (status != 0 && status != 1) {  // 1 is a failed check, listed above; anything else is the run's own
        std::ifstream err(dir + "/stderr");
        std::string first;
        std::getline(err, first);
        out.push_back({"emutrace.campaign", label + ": run", 0, "exit status " + std::to_string(status), first, ""});
    } else if (!any) {
        out.push_back({"emutrace.campaign", label + ": run", 0, status ? "exit status 1" : "", "", ""});
    }
}

// What a run entry's cases measured of a WCET function: their loop-context statistics files.
struct WcetRuns {
    std::vector<std::string> stats;
    std::string firmware, scenario, function;
    // Adds the case if it bounded a function and saved its statistics.
    void add(const CampaignCase& k, const nlohmann::json& result, const std::string& dir) {
        if (!result.is_object() || !result.contains("wcet") || !result["wcet"].is_object() || !fs::exists(dir + "/wcet_stats.json")) return;
        stats.push_back(dir + "/wcet_stats.json");
        firmware = report::text_at(result, "firmware");
        scenario = k.scenario;
        function = report::text_at(result["wcet"], "function");
    }
};

// One WCET bound from every case of a run entry that measured the function: the statistics of
// all the runs merged (`emutrace wcet --no-run --stats-in ...`, where StatisticsTable::merge is the
// algebra), with the case whose run came closest to it.
nlohmann::json bound_over_cases(const Campaign& c, const std::string& group, std::size_t group_index, const MergedResults& merged,
                                const WcetRuns& runs, const std::string& emutrace) {
    const auto& [stats, firmware, scenario, function] = runs;
    if (stats.empty() || firmware.empty() || function.empty()) return nullptr;
    // Named after the run entry, readable and never shared: its name may hold any character, so
    // only letters and digits of it are kept, and its index makes it unique.
    std::string name;
    for (char ch : group) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    const std::string out = c.results + "/wcet-" + std::to_string(group_index) + "-" + name.substr(0, 60);
    std::vector<std::string> argv{emutrace, "wcet", firmware, "-f", function, "--no-run", "--json", out + ".json"};
    if (!scenario.empty()) argv.insert(argv.end(), {"-s", scenario});
    for (const auto& s : stats) argv.insert(argv.end(), {"--stats-in", s});
    int status = run_process(argv, out + ".stdout", out + ".stderr");
    nlohmann::json bound = read_result(out + ".json");
    nlohmann::json j = {
        {"function", function}, {"firmware", firmware}, {"runs_of_cases", stats.size()}, {"status", status}, {"report", out + ".json"}};
    if (bound.is_object()) {
        j["bound_cycles"] = bound.value("bound_cycles", 0);
        j["observed_max_cycles"] = bound.value("observed_max_cycles", 0);
        j["observed_runs"] = bound.value("observed_runs", 0);
    }
    // The group's own merged results: one firmware, so the function names its entry.
    for (const auto& [key, totals] : merged.wcet)
        if (key.function == function) j["closest_case"] = totals.observed.case_id;
    return j;
}

}  // namespace

namespace {

// The merged answer from the cases' directories: JSON, JUnit and the summary; the exit status.
int merge_results(const Campaign& c, const CampaignOptions& o, const std::string& emutrace, std::size_t resumed) {
    MergedResults all;
    std::map<std::string, MergedResults> by_group;
    std::map<std::string, WcetRuns> wcet_runs;  ///< by group
    std::vector<TestCase> tests;
    std::size_t incomplete = 0;
    for (const CampaignCase& k : c.cases) {
        const std::string dir = case_dir(c, k);
        const int status = case_status(c, k);
        incomplete += status < 0;
        nlohmann::json result = read_result(dir + "/result.json");
        MergedResults one = case_results(result, status, k.id());
        all = merge(all, one);
        by_group[k.group] = merge(by_group[k.group], one);
        wcet_runs[k.group].add(k, result, dir);
        add_test_cases(tests, k, result, status, dir);
    }
    nlohmann::json j = {{"campaign", c.name}, {"file", c.file}, {"results", c.results}, {"overall", to_json(all)}, {"incomplete", incomplete}};
    std::string wcet_lines;
    std::size_t group_index = 0;
    for (const auto& [group, r] : by_group) {
        j["runs"][group] = to_json(r);
        nlohmann::json bound = bound_over_cases(c, group, group_index++, r, wcet_runs[group], emutrace);
        if (bound.is_null()) continue;
        j["runs"][group]["wcet_all_runs"] = bound;
        if (bound.contains("bound_cycles")) {
            char line[256];
            std::snprintf(line, sizeof line, "  WCET of %s over the %llu runs of %s: bound %llu cycles; longest run %llu cycles (%s)\n",
                          bound["function"].get<std::string>().c_str(), static_cast<unsigned long long>(bound["observed_runs"].get<std::uint64_t>()),
                          group.c_str(), static_cast<unsigned long long>(bound["bound_cycles"].get<std::uint64_t>()),
                          static_cast<unsigned long long>(bound["observed_max_cycles"].get<std::uint64_t>()),
                          bound.value("closest_case", "").c_str());
            wcet_lines += line;
        } else {
            wcet_lines += "  WCET over the runs of " + group + ": not bounded (exit status " + std::to_string(bound["status"].get<int>()) + ", see " +
                          bound["report"].get<std::string>() + ")\n";
        }
    }
    const std::string json_path = o.json.empty() ? c.json : o.json, junit_path = o.junit.empty() ? c.junit : o.junit;
    // Written beside and renamed over: a job killed while writing leaves the last whole result.
    if (!json_path.empty()) {
        config::write_text_file(json_path + ".partial", config::json_text(j, 2) + "\n", "merged campaign result");
        std::error_code failed;
        fs::rename(json_path + ".partial", json_path, failed);
        if (failed) throw ConfigError(json_path + ": cannot write the merged campaign result: " + failed.message());
    }
    if (!junit_path.empty()) config::write_text_file(junit_path, session::junit_xml(c.file, tests), "campaign JUnit report");
    if (!o.report.empty()) config::write_text_file(o.report, campaign_report_html(j), "HTML report");
    if (!o.quiet) {
        std::printf("campaign %s: %zu cases (%zu from an earlier invocation%s), results in %s\n", c.name.c_str(), c.cases.size(), resumed,
                    incomplete ? (", " + std::to_string(incomplete) + " not complete").c_str() : "", c.results.c_str());
        for (const auto& [group, r] : by_group)
            if (by_group.size() > 1) std::printf("%s:\n%s", group.c_str(), summary(r, 3).c_str());
        std::printf("all runs:\n%s%s", summary(all).c_str(), wcet_lines.c_str());
        std::size_t listed = 0;
        for (const auto& id : all.not_passed)
            if (listed++ < 10) std::printf("  not passed: %s (%s/%s/stderr)\n", id.c_str(), c.results.c_str(), id.c_str());
        if (all.not_passed.size() > 10) std::printf("  ... and %zu more not passed (the JSON's overall.not_passed)\n", all.not_passed.size() - 10);
    }
    return all.not_passed.empty() ? 0 : 1;
}

// Complete, not complete and failed cases, and what Slurm says of the last submission.
int print_status(const Campaign& c) {
    std::size_t complete = 0, passed = 0;
    std::vector<std::string> missing;
    for (const CampaignCase& k : c.cases) {
        int status = case_status(c, k);
        if (status < 0) {
            missing.push_back(k.id());
            continue;
        }
        ++complete;
        passed += status == 0;
    }
    std::printf("campaign %s: %zu cases, %zu complete (%zu passed, %zu did not), %zu not complete\n", c.name.c_str(), c.cases.size(), complete,
                passed, complete - passed, missing.size());
    for (std::size_t i = 0; i < missing.size() && i < 20; ++i) std::printf("  not complete: %s\n", missing[i].c_str());
    if (missing.size() > 20) std::printf("  ... and %zu more\n", missing.size() - 20);
    SlurmSubmission s;
    if (last_submission(c, s)) {
        std::printf("  slurm: array job %s (%zu of %u shards), merge job %s\n", s.array_job.c_str(), s.shards.size(), s.shard_count,
                    s.merge_job.c_str());
        const std::string out = c.results + "/slurm/squeue";
        if (run_process({"/usr/bin/env", "squeue", "-h", "-j", s.array_job + "," + s.merge_job, "-o", "%i %T %R"}, out + ".out", out + ".err") == 0) {
            std::ifstream in(out + ".out");
            std::string line, all;
            while (std::getline(in, line)) all += "    " + line + "\n";
            std::printf("%s", all.empty() ? "    (no job of it is queued or running)\n" : all.c_str());
        }
    }
    return 0;
}

// The merged outputs each in a file of its own, before any case runs: the JUnit XML written over
// the merged JSON would lose it without a word.
void check_distinct_outputs(const Campaign& c, const CampaignOptions& o) {
    const std::pair<const char*, std::string> outputs[] = {
        {"json", o.json.empty() ? c.json : o.json}, {"junit", o.junit.empty() ? c.junit : o.junit}, {"report", o.report}, {"results", c.results}};
    std::map<std::string, const char*> writer;  // path -> the output writing it
    for (const auto& [name, path] : outputs) {
        if (path.empty() || path.rfind("/dev/", 0) == 0) continue;
        auto [it, added] = writer.emplace(fs::weakly_canonical(path).string(), name);
        if (!added)
            throw ConfigError(c.file + ": outputs." + it->second + " and outputs." + name + " both name " + path + "; give each its own file");
    }
}

}  // namespace

int campaign_command(const CampaignOptions& o) {
    Campaign c = load_campaign(o.file);
    check_distinct_outputs(c, o);
    std::error_code ec;
    const std::string emutrace = fs::read_symlink("/proc/self/exe", ec).string();
    if (o.action == CampaignOptions::Action::Status) return print_status(c);
    if (o.action == CampaignOptions::Action::Merge) return merge_results(c, o, emutrace, c.cases.size());
    if (o.engine == "slurm") {
        SlurmOptions slurm{emutrace, o.shards, o.partition, o.sbatch_args, o.retry_failed};
        SlurmSubmission s = submit_to_slurm(c, o.file, slurm);
        if (s.shards.empty()) {
            std::printf("campaign %s: every case is complete; nothing to submit (emutrace campaign merge %s)\n", c.name.c_str(), o.file.c_str());
            return 0;
        }
        std::printf(
            "campaign %s: %zu cases in %zu shards as Slurm array job %s, merge job %s (after it); results in %s\n"
            "  follow it with: emutrace campaign status %s\n",
            c.name.c_str(), c.cases.size(), s.shards.size(), s.array_job.c_str(), s.merge_job.c_str(), c.results.c_str(), o.file.c_str());
        return 0;
    }
    EngineOptions engine;
    engine.emutrace = emutrace;
    engine.jobs = o.jobs ? o.jobs : std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
    engine.resume = o.resume;
    engine.progress = !o.quiet;
    if (o.shard_count) {  // a Slurm array task: its shard, no merged answer; fails only when a case did not complete
        engine.shard_index = o.shard_index;
        engine.shard_count = o.shard_count;
        std::vector<CaseOutcome> outcomes = run_locally(c, engine);
        for (const CampaignCase& k : c.cases)
            if (k.index % o.shard_count == o.shard_index && outcomes[k.index].status < 0) return 3;
        return 0;
    }
    if (!o.quiet)
        std::fprintf(stderr, "campaign %s: %zu cases, %u at a time, results in %s\n", c.name.c_str(), c.cases.size(), engine.jobs, c.results.c_str());
    std::vector<CaseOutcome> outcomes = run_locally(c, engine);
    std::size_t resumed = 0;
    for (const auto& outcome : outcomes) resumed += outcome.resumed;
    return merge_results(c, o, emutrace, resumed);
}

}  // namespace emutrace::app
