#pragma once
// Runs a campaign's cases on this machine: each case is `emutrace run` in a process of its own,
// N at a time, its JSON, JUnit, output and exit status in its own directory; a case whose status
// file exists is complete, so an interrupted campaign resumes where it stopped.

#include <sys/types.h>

#include <string>
#include <vector>

#include "app/campaign/campaign_file.h"
#include "emutrace/analysis.h"

namespace emutrace::app {

struct CaseOutcome {
    std::size_t index = 0;
    int status = -1;       ///< the run's exit status (docs/scenario.md); -1: it did not end (killed)
    bool resumed = false;  ///< complete before this invocation: not run again
};

struct EngineOptions {
    std::string emutrace;  ///< the emutrace executable the cases run
    unsigned jobs = 1;     ///< cases at a time
    bool resume = false;   ///< skip cases already complete; else every case runs afresh
    bool progress = true;  ///< a progress line on stderr (redrawn on a terminal)
    /// Only the cases of this shard: index % shard_count == shard_index (a Slurm array task's).
    unsigned shard_index = 0, shard_count = 1;
    /// Options every case's run gets so that the merge has what it reads: each a registered
    /// output (`--wcet-stats`) whose file is <name>.json in the case's directory (CampaignMerge::case_outputs).
    std::vector<AnalysisOption> case_outputs;
};

/// The exit status a complete case left in its directory; -1 when it is not complete.
int case_status(const Campaign& c, const CampaignCase& k);

/// The results directory of `k`.
std::string case_dir(const Campaign& c, const CampaignCase& k);
/// The command line of `k` (argv[0] is `emutrace`), writing into `dir`.
std::vector<std::string> case_command(const CampaignCase& k, const EngineOptions& options, const std::string& dir);
/// Starts `argv` (argv[0] a path, or a name looked up on PATH) in `cwd` (empty: here) with stdin
/// from /dev/null and its output to the two files (the same path string: both streams into one
/// file, in the order written); relative paths are taken from `cwd`. Returns its pid; throws
/// ConfigError when it cannot start.
pid_t start_process(const std::vector<std::string>& argv, const std::string& stdout_file, const std::string& stderr_file,
                    const std::string& cwd = "");
/// start_process, then waits for it and returns its exit status (-1 when it did not exit).
int run_process(const std::vector<std::string>& argv, const std::string& stdout_file, const std::string& stderr_file);
/// Runs the cases; throws ConfigError when the results directory cannot be written or a case's
/// process cannot be started.
std::vector<CaseOutcome> run_locally(const Campaign& c, const EngineOptions& options);

}  // namespace emutrace::app
