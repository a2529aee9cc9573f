#include "app/campaign/slurm_engine.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/campaign/campaign_engine.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "emutrace/config_error.h"

namespace emutrace::app {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

// sbatch --parsable prints "<job id>[;<cluster>]".
std::string sbatch(std::vector<std::string> args, const std::string& log_stem) {
    args.insert(args.begin(), {"/usr/bin/env", "sbatch", "--parsable"});
    int status = run_process(args, log_stem + ".id", log_stem + ".err");
    std::ifstream id_file(log_stem + ".id"), err_file(log_stem + ".err");
    std::string id, err;
    std::getline(id_file, id);
    std::getline(err_file, err);
    if (status != 0 || id.empty())
        throw ConfigError("sbatch " + (status == 127 ? std::string("is not installed (Debian: slurm-client)") : "refused the job: " + err));
    return id.substr(0, id.find(';'));
}

}  // namespace

SlurmSubmission submit_to_slurm(const Campaign& c, const std::string& campaign_file, const SlurmOptions& o) {
    const fs::path slurm = fs::path(c.results) / "slurm";
    std::error_code error;
    fs::create_directories(slurm, error);
    if (error) throw ConfigError(c.results + ": cannot create the campaign's results directory: " + error.message());
    SlurmSubmission s;
    SlurmSubmission earlier;
    s.shard_count = o.shards ? o.shards : static_cast<unsigned>(std::min<std::size_t>(std::max<std::size_t>(c.cases.size(), 1), 100));
    if (o.retry_failed) {
        if (!last_submission(c, earlier)) throw ConfigError(c.results + ": no earlier submission to retry (submit it first, without --retry-failed)");
        s.shard_count = earlier.shard_count;
        std::set<unsigned> incomplete;
        for (const CampaignCase& k : c.cases)
            if (case_status(c, k) < 0) incomplete.insert(static_cast<unsigned>(k.index % s.shard_count));
        s.shards.assign(incomplete.begin(), incomplete.end());
    } else {
        for (unsigned i = 0; i < s.shard_count; ++i) s.shards.push_back(i);
    }
    if (s.shards.empty()) return s;  // every case is complete
    std::string array;
    for (unsigned i : s.shards) {
        if (!array.empty()) array += ',';
        array += std::to_string(i);
    }
    const std::string file = fs::absolute(campaign_file).string();
    std::vector<std::string> common{"--job-name=emutrace-" + c.name};
    if (!o.partition.empty()) common.push_back("--partition=" + o.partition);
    common.insert(common.end(), o.sbatch_args.begin(), o.sbatch_args.end());

    // Each task: the local engine on its shard, one case at a time on the one CPU it asks for.
    std::vector<std::string> task = common;
    task.insert(task.end(), {"--array=" + array, "--cpus-per-task=1", "--output=" + (slurm / "shard-%a.out").string(),
                             "--wrap=" + quoted(o.emutrace) + " campaign " + quoted(file) + " --shard \"$SLURM_ARRAY_TASK_ID/" +
                                 std::to_string(s.shard_count) + "\" -j 1 --resume -q"});
    s.array_job = sbatch(task, (slurm / "submit-array").string());
    std::vector<std::string> merge = common;
    merge.insert(merge.end(), {"--dependency=afterok:" + s.array_job, "--kill-on-invalid-dep=yes", "--output=" + (slurm / "merge.out").string(),
                               "--wrap=" + quoted(o.emutrace) + " campaign merge " + quoted(file)});
    s.merge_job = sbatch(merge, (slurm / "submit-merge").string());
    nlohmann::json j = {
        {"array_job", s.array_job}, {"merge_job", s.merge_job}, {"shards", s.shards}, {"shard_count", s.shard_count}, {"retry", o.retry_failed}};
    config::write_text_file((slurm / "submission.json").string(), config::json_text(j, 2) + "\n", "Slurm submission record");
    return s;
}

bool last_submission(const Campaign& c, SlurmSubmission& out) {
    std::ifstream in(fs::path(c.results) / "slurm" / "submission.json");
    if (!in) return false;
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object()) return false;
    out.array_job = j.value("array_job", "");
    out.merge_job = j.value("merge_job", "");
    out.shard_count = j.value("shard_count", 0u);
    for (const auto& v : j.value("shards", nlohmann::json::array())) out.shards.push_back(v.get<unsigned>());
    return out.shard_count > 0;
}

}  // namespace emutrace::app
