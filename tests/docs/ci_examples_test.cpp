// The CI examples of docs/tutorial.md (examples/ci/github-actions.yml, examples/ci/gitlab-ci.yml)
// keep working: both parse as YAML, keep their reports when the job fails, and every command line
// of their scripts that invokes emutrace runs here against the built binary with the exit status
// the tutorial claims: 0 for the franking job against the stored baseline, 1 for the slow variant
// (constraint violated and durations regressed) and 1 for a regression alone.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

/// The shell lines of a script block, backslash continuations joined.
std::vector<std::string> shell_lines(const std::string& script) {
    std::vector<std::string> lines;
    std::istringstream in(script);
    std::string line, pending;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\\') {
            pending += line.substr(0, line.size() - 1) + " ";
            continue;
        }
        lines.push_back(pending + line);
        pending.clear();
    }
    if (!pending.empty()) lines.push_back(pending);
    return lines;
}

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

/// The word after `option` on the command line, or "" when it has none.
std::string option_value(const std::string& line, const std::string& option) {
    const auto w = words(line);
    for (std::size_t i = 0; i + 1 < w.size(); ++i)
        if (w[i] == option) return w[i + 1];
    return "";
}

bool invokes_emutrace(const std::string& line) {
    const auto w = words(line);
    return !w.empty() && std::filesystem::path(w[0]).filename() == "emutrace";
}

std::string replaced(std::string text, const std::string& what, const std::string& with) {
    const auto at = text.find(what);
    REQUIRE_MESSAGE(at != std::string::npos, "'" << what << "' is not in: " << text);
    return text.replace(at, what.size(), with);
}

/// Every script line of the GitHub workflow's steps (`run:`).
std::vector<std::string> github_lines(const YAML::Node& workflow) {
    std::vector<std::string> lines;
    for (const auto& job : workflow["jobs"])
        for (const auto& step : job.second["steps"])
            if (step["run"])
                for (const auto& l : shell_lines(step["run"].as<std::string>())) lines.push_back(l);
    return lines;
}

/// Every script line of the GitLab jobs (`before_script:`, `script:`, `after_script:`).
std::vector<std::string> gitlab_lines(const YAML::Node& pipeline) {
    std::vector<std::string> lines;
    for (const auto& job : pipeline)
        if (job.second.IsMap())
            for (const char* key : {"before_script", "script", "after_script"})
                for (const auto& item : job.second[key])
                    for (const auto& l : shell_lines(item.as<std::string>())) lines.push_back(l);
    return lines;
}

/// A working directory laid out like the CI job's checkout: the source tree's scenarios and
/// examples, and the built binary in place of build/emutrace.
struct Checkout {
    TempDir dir;
    Checkout() {
        for (const char* d : {"scenarios", "examples"}) std::filesystem::create_directory_symlink(source(d), dir.path() / d);
    }
    /// Runs one command line of a CI script in the checkout: its exit status and output.
    Cli outcome(const std::string& line) const {
        std::string cmd = line;
        const std::string exe = words(line).at(0);
        cmd.replace(cmd.find(exe), exe.size(), emutrace_binary());
        return run_shell("cd '" + dir.path().string() + "' && " + cmd);
    }
    /// The same, its exit status.
    int run(const std::string& line) const {
        Cli r = outcome(line);
        INFO("command: ", line, "\nstderr: ", r.err);
        return r.status;
    }
    std::string file(const std::string& relative) const { return dir.file(relative); }
};

/// The emutrace lines of a CI file, run as the tutorial says they behave.
void check_emutrace_lines(const std::vector<std::string>& lines) {
    std::vector<std::string> runs;
    for (const auto& l : lines)
        if (invokes_emutrace(l)) runs.push_back(l);
    REQUIRE(runs.size() == 1);
    const std::string line = runs[0];
    INFO("CI line: ", line);
    const std::string junit = option_value(line, "--junit"), report = option_value(line, "--report"), result = option_value(line, "--json"),
                      baseline = option_value(line, "--baseline"), scenario = option_value(line, "--scenario");
    REQUIRE(!junit.empty());
    REQUIRE(!report.empty());
    REQUIRE(!result.empty());
    REQUIRE(baseline == "examples/ci/baseline.json");
    REQUIRE(scenario == "scenarios/franking/franking.yaml");

    SUBCASE("the franking job passes against the stored baseline and writes its reports") {
        Checkout c;
        CHECK(c.run(line) == 0);
        CHECK(read_file(c.file(junit)).find("<testcase classname=\"emutrace.constraints\" name=\"print_image_in_time\"") != std::string::npos);
        CHECK(read_file(c.file(report)).find("<html") != std::string::npos);
        const json r = json::parse(read_file(c.file(result)));
        CHECK(r["calltrace"]["constraints"][0]["passed"] == true);
        CHECK(r["calltrace"]["regressions"].empty());
    }
    SUBCASE("the slow variant fails: constraint violated and durations regressed, reports still written") {
        Checkout c;
        CHECK(c.run(replaced(line, "franking/franking.yaml", "franking/franking-slow.yaml")) == 1);
        CHECK(read_file(c.file(junit)).find("<failure message=\"3 of 8 occurrences violated") != std::string::npos);
        CHECK(read_file(c.file(report)).find("<html") != std::string::npos);
        const json r = json::parse(read_file(c.file(result)));
        CHECK(r["calltrace"]["constraints"][0]["passed"] == false);
        CHECK(r["calltrace"]["regressions"].size() == 2);
    }
    SUBCASE("a baseline from another cycle model is refused before the run, naming both models") {
        Checkout c;
        Cli r = c.outcome(line + " --timing trm");
        CHECK(r.status == 2);
        CHECK(r.err.find("examples/ci/baseline.json: timed by the pipeline cycle model, this run by trm") != std::string::npos);
    }
    SUBCASE("a regression alone fails the job: the franking job against a faster build's baseline") {
        Checkout c;
        CHECK(c.run("build/emutrace run --scenario scenarios/franking/franking-cached.yaml --json cached.json -q") == 0);
        CHECK(c.run(replaced(line, baseline, "cached.json")) == 1);
        const json r = json::parse(read_file(c.file(result)));
        CHECK(r["calltrace"]["constraints"][0]["passed"] == true);
        REQUIRE(r["calltrace"]["regressions"].size() == 1);
        CHECK(r["calltrace"]["regressions"][0]["measure"] == "mean_cycles");
        // The CI's test view shows it: a failing case of its own, though every constraint passed.
        CHECK(read_file(c.file(junit)).find("<testcase classname=\"emutrace.regressions\" name=\"print_image_in_time mean_cycles\"") !=
              std::string::npos);
        CHECK(c.run(replaced(replaced(line, baseline, "cached.json"), "--regression-threshold 0.05", "--regression-threshold 0.5")) == 0);
    }
}

/// The files a step or job keeps as artifacts.
std::vector<std::string> lines_of(const YAML::Node& node) {
    std::vector<std::string> out;
    if (node.IsSequence())
        for (const auto& item : node) out.push_back(item.as<std::string>());
    else if (node.IsScalar())
        for (const auto& l : shell_lines(node.as<std::string>()))
            if (!words(l).empty()) out.push_back(words(l)[0]);
    return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string emutrace_line(const std::vector<std::string>& lines) {
    for (const auto& l : lines)
        if (invokes_emutrace(l)) return l;
    return "";
}

}  // namespace

TEST_CASE("ci examples: the GitHub Actions workflow") {
    const YAML::Node wf = YAML::LoadFile(source("examples/ci/github-actions.yml"));
    const auto lines = github_lines(wf);
    const std::string line = emutrace_line(lines);
    REQUIRE(!line.empty());
    const YAML::Node job = wf["jobs"]["timing"];
    CHECK(job["container"].as<std::string>() == "debian:12");
    CHECK(contains(lines, "bash scripts/install-deps"));
    bool junit_published = false, report_kept = false;
    for (const auto& step : job["steps"]) {
        if (!step["uses"]) continue;
        const auto uses = step["uses"].as<std::string>();
        if (uses.starts_with("mikepenz/action-junit-report@")) {
            CHECK(step["if"].as<std::string>() == "always()");
            CHECK(step["with"]["report_paths"].as<std::string>() == option_value(line, "--junit"));
            junit_published = true;
        }
        if (uses.starts_with("actions/upload-artifact@")) {
            CHECK(step["if"].as<std::string>() == "always()");
            CHECK(contains(lines_of(step["with"]["path"]), option_value(line, "--report")));
            report_kept = true;
        }
    }
    CHECK(junit_published);
    CHECK(report_kept);
    check_emutrace_lines(lines);
}

TEST_CASE("ci examples: the GitLab CI job") {
    const YAML::Node pipeline = YAML::LoadFile(source("examples/ci/gitlab-ci.yml"));
    const auto lines = gitlab_lines(pipeline);
    const std::string line = emutrace_line(lines);
    REQUIRE(!line.empty());
    const YAML::Node job = pipeline["timing"];
    CHECK(job["image"].as<std::string>() == "debian:12");
    CHECK(contains(lines, "bash scripts/install-deps"));
    CHECK(job["artifacts"]["when"].as<std::string>() == "always");
    CHECK(job["artifacts"]["reports"]["junit"].as<std::string>() == option_value(line, "--junit"));
    CHECK(contains(lines_of(job["artifacts"]["paths"]), option_value(line, "--report")));
    check_emutrace_lines(lines);
}

TEST_CASE("ci examples: docs/tutorial.md quotes both files as they are") {
    const std::string tutorial = read_file(source("docs/tutorial.md"));
    for (const char* file : {"examples/ci/github-actions.yml", "examples/ci/gitlab-ci.yml"}) {
        INFO(file);
        CHECK(tutorial.find("```yaml\n" + read_file(source(file)) + "```\n") != std::string::npos);
    }
}
