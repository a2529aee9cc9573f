// A campaign on a real Slurm cluster: Debian's slurmctld, slurmd and munged, started on this
// machine by scripts/slurm-single-node (one node, 2 CPUs, ports of its own, everything in a
// temporary directory). The merged answer must equal the local engine's; a task killed mid-run
// must show as not complete, and --retry-failed must complete the campaign. Without root or without the daemons the test
// is skipped (exit 77, which CTest reports as skipped) with the reason, never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli.h"
#include "support/doctest_query.h"
#include "support/doctest_run.h"
#include "support/nightly_campaign.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// One node called as this host is, with 2 CPUs, started by the script docs/campaign.md gives
// users (scripts/slurm-single-node): munge and Slurm on ports and paths of their own.
class Cluster {
public:
    /// Empty when the cluster is up; else why not (no root, no daemons), the script's one line.
    std::string start_all() {
        Cli up = run_shell(script_ + " start " + dir_.path().string() + " 2");
        if (up.status != 0) return up.err.empty() ? "scripts/slurm-single-node failed" : up.err.substr(0, up.err.find('\n'));
        started_ = true;
        setenv("SLURM_CONF", (dir_.path().string() + "/slurm.conf").c_str(), 1);
        return "";
    }
    ~Cluster() {
        if (started_) run_shell(script_ + " stop " + dir_.path().string());
    }

private:
    TempDir dir_;
    std::string script_ = source("scripts/slurm-single-node");
    bool started_ = false;
};

std::string campaign_text(const std::string& results, const std::string& extra_run = "") {
    return "name: franking-slurm\nruns:\n  - name: franking\n    firmware: franking\n    scenario: " + source("scenarios/franking/franking.yaml") +
           "\n    matrix: {seed: [1, 2], clock: [48MHz, 40MHz]}\n  - name: franking-slow\n    firmware: franking_slow\n    scenario: " +
           source("scenarios/franking/franking-slow.yaml") + "\n    matrix: {seed: [1, 2]}\n" + extra_run + "outputs: {results: " + results +
           ", json: merged.json}\n";
}

// Waits until no job of the campaign's last submission is queued or running.
// Generous: the cluster's two cores are shared with the rest of the suite, built with sanitizers.
bool wait_for_jobs(const std::string& results, int seconds = 900) {
    json s = json::parse(read_file(results + "/slurm/submission.json"));
    std::string jobs = s["array_job"].get<std::string>() + "," + s["merge_job"].get<std::string>();
    for (int i = 0; i < seconds * 10; ++i) {
        Cli q = run_shell("squeue -h -j " + jobs + " -o %i");
        if (q.status == 0 && q.out.empty()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Which jobs are still there, and why, for the failure's log.
    std::printf("jobs still queued after %d s:\n%s", seconds, run_shell("squeue -j " + jobs + " -o '%i %T %r %M'").out.c_str());
    return false;
}

}  // namespace

TEST_CASE("slurm: the campaign as a job array and a merge job gives the local engine's answer") {
    TempDir dir;
    std::ofstream(dir.file("local.yaml")) << campaign_text(dir.file("local.results"));
    std::ofstream(dir.file("slurm.yaml")) << campaign_text(dir.file("slurm.results"));
    REQUIRE(emutrace_cli("campaign " + dir.file("local.yaml") + " -j 2 -q").status == 1);
    Cli submit = emutrace_cli("campaign " + dir.file("slurm.yaml") + " --engine slurm --shards 3");
    REQUIRE_MESSAGE(submit.status == 0, submit.err);
    CHECK(submit.out.find("6 cases in 3 shards as Slurm array job") != std::string::npos);
    REQUIRE(wait_for_jobs(dir.file("slurm.results")));
    Cli status = emutrace_cli("campaign status " + dir.file("slurm.yaml"));
    CHECK(status.out.find("6 complete") != std::string::npos);
    const json local = json::parse(read_file(dir.file("merged.json")));
    REQUIRE(fs::exists(dir.file("slurm.results/slurm/merge.out")));
    // Both campaigns write merged.json beside their file: the Slurm one's came last.
    const json slurm = json::parse(read_file(dir.file("merged.json")));
    CHECK(slurm["results"] == dir.file("slurm.results"));
    CHECK(slurm["overall"] == local["overall"]);
    CHECK(slurm["incomplete"] == 0);
}

TEST_CASE("slurm: the nightly campaign's cases in shards of ten give the local engine's answer") {
    TempDir local, slurm;
    const NightlyCampaign nightly = nightly_campaign(local.path().string());
    std::ofstream(local.file("nightly.yaml")) << nightly.text;
    std::ofstream(slurm.file("nightly.yaml")) << nightly_campaign(slurm.path().string()).text;
    REQUIRE(emutrace_cli("campaign " + local.file("nightly.yaml") + " -j 2 -q").status == 1);
    // Ten cases a shard, the last one short (200 cases: 20 shards; the default suite's 26: 3).
    const int shards = (nightly.cases + 9) / 10;
    Cli submit = emutrace_cli("campaign " + slurm.file("nightly.yaml") + " --engine slurm --shards " + std::to_string(shards));
    REQUIRE_MESSAGE(submit.status == 0, submit.err);
    CHECK(submit.out.find(std::to_string(nightly.cases) + " cases in " + std::to_string(shards) + " shards as Slurm array job") != std::string::npos);
    REQUIRE(wait_for_jobs(slurm.file("results")));
    CHECK(emutrace_cli("campaign status " + slurm.file("nightly.yaml")).out.find(std::to_string(nightly.cases) + " complete") != std::string::npos);
    const json a = json::parse(read_file(local.file("nightly.json"))), b = json::parse(read_file(slurm.file("nightly.json")));
    CHECK(b["incomplete"] == 0);
    CHECK(b["overall"] == a["overall"]);
    // Per run entry too, and the one WCET bound over the soak cases' runs.
    for (const auto& [group, r] : a["runs"].items()) {
        CAPTURE(group);
        json x = r, y = b["runs"][group];
        for (json* j : {&x, &y})
            if (j->contains("wcet_all_runs")) (*j)["wcet_all_runs"].erase("report");  // a path in each results directory
        CHECK(x == y);
    }
}

TEST_CASE("slurm: a task killed mid-run leaves its case not complete, and --retry-failed completes the campaign") {
    TempDir dir;
    // A case long enough to be killed while it runs: the soak firmware for 4 days of emulated time
    // (a few seconds).
    const std::string soak =
        "  - name: soak\n    firmware: soak\n    scenario: " + source("bench/soak.yaml") + "\n    matrix: {\"semihosting.cmdline\": [\"350000\"]}\n";
    std::ofstream(dir.file("c.yaml")) << campaign_text(dir.file("results"), soak);
    REQUIRE(emutrace_cli("campaign " + dir.file("c.yaml") + " --engine slurm --shards 7").status == 0);
    json s = json::parse(read_file(dir.file("results/slurm/submission.json")));
    const std::string array = s["array_job"];
    // The soak case is case 6, shard 6: kill its task once it runs.
    bool killed = false;
    for (int i = 0; i < 600 && !killed; ++i) {
        Cli q = run_shell("squeue -h -j " + array + "_6 -o %T");
        if (q.out.find("RUNNING") != std::string::npos && fs::exists(dir.file("results/case-0006/case.json"))) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            killed = run_shell("scancel --signal=KILL --full " + array + "_6").status == 0;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE(killed);
    REQUIRE(wait_for_jobs(dir.file("results")));
    Cli status = emutrace_cli("campaign status " + dir.file("c.yaml"));
    CHECK(status.out.find("1 not complete") != std::string::npos);
    CHECK(status.out.find("not complete: case-0006") != std::string::npos);
    CHECK(!fs::exists(dir.file("merged.json")));  // the merge waits for every task to end well: it never ran

    // Once more: only the shard with the case not complete; the complete ones are kept.
    Cli retry = emutrace_cli("campaign " + dir.file("c.yaml") + " --engine slurm --retry-failed");
    REQUIRE_MESSAGE(retry.status == 0, retry.err);
    CHECK(retry.out.find("in 1 shards") != std::string::npos);
    REQUIRE(wait_for_jobs(dir.file("results")));
    CHECK(emutrace_cli("campaign status " + dir.file("c.yaml")).out.find("7 complete") != std::string::npos);
    const json merged = json::parse(read_file(dir.file("merged.json")));
    CHECK(merged["overall"]["cases"] == 7);
    CHECK(merged["incomplete"] == 0);
}

REGISTER_LISTENER("filter_count", 1, emutrace::test::FilterCountListener);

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    if (doctest_only_lists(argc, argv)) return context.run();
    Cluster cluster;
    std::string why = cluster.start_all();
    if (!why.empty()) {
        std::printf("SKIPPED: no Slurm cluster could be started on this machine: %s\n", why.c_str());
        return 77;
    }
    return emutrace::test::run_doctest(context, argc, argv);
}
