#pragma once
// The same campaign on a Slurm cluster: a job array whose task I runs `emutrace campaign FILE
// --shard I/N` (the local engine on that shard's cases: the same command a case is locally), on a
// results directory all nodes share, and a merge job (`emutrace campaign merge FILE`) that starts
// when every task has ended well (--dependency=afterok).

#include <string>
#include <vector>

#include "app/campaign/campaign_file.h"

namespace emutrace::app {

struct SlurmOptions {
    std::string emutrace;                  ///< the emutrace executable, as the nodes see it
    unsigned shards = 0;                   ///< array tasks; 0: one per case, at most 100
    std::string partition;                 ///< empty: the cluster's default
    std::vector<std::string> sbatch_args;  ///< more sbatch options, e.g. --time=1:00:00
    bool retry_failed = false;             ///< only the shards with a case not complete, once more
};

struct SlurmSubmission {
    std::string array_job, merge_job;
    std::vector<unsigned> shards;  ///< the array's task ids
    unsigned shard_count = 0;
};

/// Submits the campaign (or, with retry_failed, its incomplete shards) with sbatch and writes
/// <results>/slurm/submission.json. Throws ConfigError when sbatch is missing or refuses.
SlurmSubmission submit_to_slurm(const Campaign& c, const std::string& campaign_file, const SlurmOptions& options);

/// What <results>/slurm/submission.json recorded, if anything.
bool last_submission(const Campaign& c, SlurmSubmission& out);

}  // namespace emutrace::app
