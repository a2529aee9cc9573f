// A campaign on a real Slurm cluster: Debian's slurmctld, slurmd and munged, started by this test
// on this machine (one node, 2 CPUs, ports of its own, everything in a temporary directory). The
// merged answer must equal the local engine's; a task killed mid-run must show as not complete,
// and --retry-failed must complete the campaign. Without root or without the daemons the test
// is skipped (exit 77, which CTest reports as skipped) with the reason, never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/campaign/campaign_engine.h"
#include "config/config_error.h"
#include "support/cli.h"
#include "support/doctest_query.h"
#include "support/nightly_campaign.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool on_path(const std::string& tool) {
    return run_shell("command -v " + tool).status == 0;
}

pid_t start(const std::vector<std::string>& argv, const std::string& log) {
    try {
        return emutrace::app::start_process(argv, log, log);
    } catch (const emutrace::ConfigError&) {
        return -1;
    }
}

// One node called as this host is, with 2 CPUs; munge and Slurm on ports and paths of their own.
class Cluster {
public:
    std::string start_all() {
        if (geteuid() != 0) return "the test cluster's slurmd must run as root to launch jobs, and this user is not root";
        for (const char* tool : {"munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"})
            if (!on_path(tool)) return std::string(tool) + " is not installed (scripts/install-deps installs slurm-wlm and munge)";
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        const std::string d = dir_.path();
        fs::create_directories(d + "/munge");
        fs::permissions(d + "/munge", fs::perms::owner_all);
        for (const char* sub : {"state", "spool", "log"}) fs::create_directories(d + "/" + sub);
        if (run_shell("dd if=/dev/urandom of=" + d + "/munge/munge.key bs=1024 count=1 status=none && chmod 400 " + d + "/munge/munge.key").status)
            return "cannot write a munge key";
        socket_ = d + "/munge/munge.sock";
        if (run_shell("munged --force --key-file=" + d + "/munge/munge.key --socket=" + socket_ + " --pid-file=" + d +
                      "/munge/munged.pid --log-file=" + d + "/munge/munged.log --seed-file=" + d + "/munge/munged.seed")
                .status)
            return "munged did not start (" + d + "/munge/munged.log)";
        munge_ = true;
        std::uniform_int_distribution<int> ports(20000, 29000);
        std::random_device seed;
        int port = ports(seed);
        std::ofstream(d + "/slurm.conf") << "ClusterName=emutrace-test\nSlurmctldHost=" << host << "\nSlurmctldPort=" << port
                                         << "\nSlurmdPort=" << port + 1 << "\nAuthType=auth/munge\nAuthInfo=socket=" << socket_
                                         << "\nCredType=cred/munge\nSlurmUser=root\nSlurmdUser=root\n"
                                         << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\nSlurmctldPidFile=" << d
                                         << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\nSlurmctldLogFile=" << d
                                         << "/log/slurmctld.log\nSlurmdLogFile=" << d << "/log/slurmd.log\n"
                                         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                                         << "MpiDefault=none\nReturnToService=2\nSchedulerType=sched/backfill\nSelectType=select/cons_tres\n"
                                         << "SelectTypeParameters=CR_Core\nNodeName=" << host << " CPUs=2 State=UNKNOWN\n"
                                         << "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
        setenv("SLURM_CONF", (d + "/slurm.conf").c_str(), 1);
        ctld_ = start({"slurmctld", "-D", "-i"}, d + "/log/slurmctld.out");
        slurmd_ = start({"slurmd", "-D"}, d + "/log/slurmd.out");
        if (ctld_ < 0 || slurmd_ < 0) return "slurmctld or slurmd did not start";
        for (int i = 0; i < 200; ++i) {  // up to 20 s for the node to register
            Cli info = run_shell("sinfo -h -o %t");
            if (info.status == 0 && info.out.find("idle") != std::string::npos) return "";
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return "the node did not come up (" + d + "/log/slurmctld.log, slurmd.log)";
    }
    ~Cluster() {
        for (pid_t pid : {slurmd_, ctld_})
            if (pid > 0) kill(pid, SIGTERM), waitpid(pid, nullptr, 0);
        if (munge_) run_shell("munged --stop --socket=" + socket_);
    }

private:
    TempDir dir_;
    std::string socket_;
    bool munge_ = false;
    pid_t ctld_ = -1, slurmd_ = -1;
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

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    if (doctest_only_lists(argc, argv)) return context.run();
    Cluster cluster;
    std::string why = cluster.start_all();
    if (!why.empty()) {
        std::printf("SKIPPED: no Slurm cluster could be started on this machine: %s\n", why.c_str());
        return 77;
    }
    return context.run();
}
