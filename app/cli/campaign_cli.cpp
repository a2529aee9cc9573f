// emutrace campaign: many cases run locally or on Slurm, and their results merged.
#include <cstdio>

#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class CampaignSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        CampaignOptions& c = campaign_;
        Command cmd = parser.subcommand("campaign", "Run many cases (firmware x scenario x a matrix of scenario keys) and merge their results.");
        cmd.option("file", c.file, "Campaign YAML: runs (firmware, scenario, matrix, args) and outputs").existing_file();
        cmd.option("-j,--jobs", c.jobs, "Cases at a time (default: one per core)");
        cmd.option("--engine", c.engine, "local (default: this machine) or slurm (a job array and a merge job, sbatch)").one_of({"local", "slurm"});
        cmd.option("--shards", c.shards, "With --engine slurm: array tasks (default: one per case, at most 100)");
        cmd.option("--partition", c.partition, "With --engine slurm: the partition (default: the cluster's)");
        cmd.option("--sbatch-arg", c.sbatch_args, "With --engine slurm: one more sbatch option, e.g. --time=2:00:00 (repeatable)").no_extra_args();
        cmd.flag("--retry-failed", c.retry_failed, "With --engine slurm: submit again the shards of the cases not complete");
        cmd.option("--shard", shard_, "Run only shard I of N (index mod N == I), no merge: what a Slurm array task runs").type_name("I/N");
        status_ = cmd.subcommand("status", "Which cases are complete, passed or not, and the Slurm jobs' state");
        status_.option("file", c.file, "Campaign YAML").required().existing_file();
        merge_ = cmd.subcommand("merge", "Merge the cases' results as they are (the Slurm merge job runs this)");
        merge_.option("file", c.file, "Campaign YAML").required().existing_file();
        merge_.option("--json", c.json, "Write the merged result as JSON (overrides outputs.json)");
        merge_.option("--junit", c.junit, "Write one JUnit test case per case and constraint (overrides outputs.junit)");
        merge_.option("--report", c.report, "Write a self-contained HTML page of the merged result").type_name("FILE.html");
        merge_.flag("-q,--quiet", c.quiet, "No summary");
        cmd.flag("--resume", c.resume, "Keep the cases already complete in the results directory; run the rest");
        cmd.option("--json", c.json, "Write the merged result as JSON (overrides outputs.json)");
        cmd.option("--junit", c.junit, "Write one JUnit test case per case and constraint (overrides outputs.junit)");
        cmd.option("--report", c.report, "Write a self-contained HTML page of the merged result: statuses, constraints, WCET").type_name("FILE.html");
        cmd.flag("-q,--quiet", c.quiet, "No progress line and no summary");
        cmd.footer(
            "Each case is 'emutrace run' with the matrix's values as --set PATH=VALUE, in a process of its own; its result.json,\n"
            "result.xml, stdout, stderr and exit status go to <results>/case-NNNN/. Merging adds counts, keeps extremes with\n"
            "the case they came from, and weighs means by their counts; per run entry and over all. Exit status: 0 every case\n"
            "passed, 1 some case did not (listed), 2 a bad campaign file. docs/campaign.md has the file format.\n"
            "Example:\n"
            "  runs:\n"
            "    - firmware: franking\n"
            "      scenario: scenarios/franking/franking.yaml\n"
            "      matrix: {seed: [1, 2, 3], clock: [48MHz, 40MHz], \"stimuli[0].jitter\": [0us, 300us]}\n"
            "  outputs: {results: nightly.results, json: nightly.json, junit: nightly.xml}");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        CampaignOptions& c = campaign_;
        if (status_.given()) c.action = CampaignOptions::Action::Status;
        if (merge_.given()) c.action = CampaignOptions::Action::Merge;
        if (c.file.empty()) return usage_error("campaign", "give the campaign file");
        if (!shard_.empty()) {
            unsigned i = 0, n = 0;
            char rest = 0;
            if (std::sscanf(shard_.c_str(), "%u/%u%c", &i, &n, &rest) != 2 || n == 0 || i >= n)
                return usage_error("campaign", "--shard " + shard_ + ": give I/N with 0 <= I < N, e.g. 3/16");
            c.shard_index = i, c.shard_count = n;
        }
        return campaign_command(registry, c);
    }

private:
    CampaignOptions campaign_;
    std::string shard_;
    Command status_{nullptr}, merge_{nullptr};
};

}  // namespace

std::unique_ptr<Subcommand> campaign_subcommand() {
    return std::make_unique<CampaignSubcommand>();
}

}  // namespace emutrace::app::cli
