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

// The case as the analyses' merges see it.
emutrace::CampaignCase merge_case(const Campaign& c, const CampaignCase& k, const nlohmann::json& result, int status) {
    return {k.id(),     k.id() + " " + k.group + (k.settings.empty() ? "" : " [" + settings_text(k) + "]"),
            k.group,    result.is_object() ? report::text_at(result, "firmware") : std::string(),
            k.scenario, case_dir(c, k),
            status};
}

// The analyses' JUnit test cases of one case, and one for a case that did not run to its end
// (or that no analysis judged).
void add_test_cases(const AnalysisRegistry& registry, std::vector<TestCase>& out, const emutrace::CampaignCase& k, const nlohmann::json& result,
                    const std::vector<std::unique_ptr<CampaignTotals>>& judges) {
    bool any = false;
    std::size_t judge = 0;
    for (const auto& type : registry.types()) {
        if (!type.campaign.totals) continue;
        const CampaignTotals& totals = *judges[judge++];
        if (!result.is_object() || !result.contains(type.name) || !result[type.name].is_object()) continue;
        for (auto& t : totals.test_cases(k, result[type.name].dump())) {
            out.push_back(std::move(t));
            any = true;
        }
    }
    if (k.status != 0 && k.status != 1) {  // 1 is a failed check, listed above; anything else is the run's own
        std::ifstream err(k.dir + "/stderr");
        std::string first;
        std::getline(err, first);
        out.push_back({"emutrace.campaign", k.label + ": run", 0, "exit status " + std::to_string(k.status), first, ""});
    } else if (!any) {
        out.push_back({"emutrace.campaign", k.label + ": run", 0, k.status ? "exit status 1" : "", "", ""});
    }
}

// A run entry of the campaign, for the analyses' work over all of its cases.
class RunEntry final : public CampaignRunEntry {
public:
    RunEntry(const Campaign& c, std::string name, std::size_t index, std::string emutrace)
        : results_(c.results), name_(std::move(name)), index_(index), emutrace_(std::move(emutrace)) {}
    const std::string& name() const override { return name_; }
    // Named after the run entry, readable and never shared: its name may hold any character, so
    // only letters and digits of it are kept, and its index makes it unique.
    std::string output_prefix(std::string_view what) const override {
        std::string name;
        for (char ch : name_) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
        std::string kind;
        for (char ch : what) kind += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
        return results_ + "/" + kind + "-" + std::to_string(index_) + "-" + name.substr(0, 60);
    }
    int run_emutrace(const std::vector<std::string>& arguments, const std::string& prefix) const override {
        std::vector<std::string> argv{emutrace_};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run_process(argv, prefix + ".stdout", prefix + ".stderr");
    }

private:
    std::string results_, name_;
    std::size_t index_;
    std::string emutrace_;
};

}  // namespace

namespace {

// Writes the merged JSON beside and renames it over: a job killed while writing leaves the last whole result.
void write_merged_json(const std::string& path, const nlohmann::json& j) {
    config::write_text_file(path + ".partial", config::json_text(j, 2) + "\n", "merged campaign result");
    std::error_code failed;
    fs::rename(path + ".partial", path, failed);
    if (failed) throw ConfigError(path + ": cannot write the merged campaign result: " + failed.message());
}

// The merged answer from the cases' directories: JSON, JUnit and the summary; the exit status.
int merge_results(const AnalysisRegistry& registry, const Campaign& c, const CampaignOptions& o, const std::string& emutrace, std::size_t resumed) {
    MergedResults all;
    std::map<std::string, MergedResults> by_group;
    std::vector<TestCase> tests;
    std::vector<std::unique_ptr<CampaignTotals>> judges;  // the campaign-aware analyses, for their test cases
    for (const auto& type : registry.types())
        if (type.campaign.totals) judges.push_back(type.campaign.totals());
    std::size_t incomplete = 0;
    for (const CampaignCase& k : c.cases) {
        const int status = case_status(c, k);
        incomplete += status < 0;
        nlohmann::json result = read_result(case_dir(c, k) + "/result.json");
        const emutrace::CampaignCase one = merge_case(c, k, result, status);
        MergedResults merged = case_results(registry, result, one);
        merge_into(all, merged);
        merge_into(by_group[k.group], merged);
        add_test_cases(registry, tests, one, result, judges);
    }
    std::string finished;  // what the analyses said after their work over each run entry
    std::size_t group_index = 0;
    for (auto& [group, r] : by_group) {
        RunEntry entry(c, group, group_index++, emutrace);
        for (auto& [index, t] : r.analyses) finished += t.totals->finish(entry);
    }
    nlohmann::json j = {{"campaign", c.name}, {"file", c.file}, {"results", c.results}, {"overall", to_json(all)}, {"incomplete", incomplete}};
    for (const auto& [group, r] : by_group) j["runs"][group] = to_json(r);
    const std::string json_path = o.json.empty() ? c.json : o.json, junit_path = o.junit.empty() ? c.junit : o.junit;
    if (!json_path.empty()) write_merged_json(json_path, j);
    if (!junit_path.empty()) config::write_text_file(junit_path, session::junit_xml(c.file, tests), "campaign JUnit report");
    if (!o.report.empty()) config::write_text_file(o.report, campaign_report_html(registry, j), "HTML report");
    if (!o.quiet) {
        std::printf("campaign %s: %zu cases (%zu from an earlier invocation%s), results in %s\n", c.name.c_str(), c.cases.size(), resumed,
                    incomplete ? (", " + std::to_string(incomplete) + " not complete").c_str() : "", c.results.c_str());
        for (const auto& [group, r] : by_group)
            if (by_group.size() > 1) std::printf("%s:\n%s", group.c_str(), summary(r, true).c_str());
        std::printf("all runs:\n%s%s", summary(all).c_str(), finished.c_str());
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

int campaign_command(const AnalysisRegistry& registry, const CampaignOptions& o) {
    Campaign c = load_campaign(o.file);
    check_distinct_outputs(c, o);
    std::error_code ec;
    const std::string emutrace = fs::read_symlink("/proc/self/exe", ec).string();
    if (o.action == CampaignOptions::Action::Status) return print_status(c);
    if (o.action == CampaignOptions::Action::Merge) return merge_results(registry, c, o, emutrace, c.cases.size());
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
    for (const auto& type : registry.types())
        for (const auto& name : type.campaign.case_outputs)
            for (const auto& output : type.outputs)
                if (output.name == name) engine.case_outputs.push_back(output);
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
    return merge_results(registry, c, o, emutrace, resumed);
}

}  // namespace emutrace::app
