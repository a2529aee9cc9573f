#pragma once
// One emutrace subcommand on the command line: it declares its options on the parser and, when
// it is the one given, turns them into its command's call (app/commands.h). main() holds one row
// per subcommand (app/main.cpp); each lives in a file of its own here.
#include <memory>
#include <string>

#include "app/cli/command_line.h"
#include "app/commands.h"
#include "emutrace/registry.h"

namespace emutrace::app::cli {

class Subcommand {
public:
    virtual ~Subcommand() = default;
    /// Adds the subcommand and its options to `parser`; returns it.
    virtual Command declare(Command& parser, const AnalysisRegistry& registry) = 0;
    /// After parsing, when this subcommand was given: runs it and returns the exit status.
    /// Throws ConfigError for bad input.
    virtual int run(const AnalysisRegistry& registry) = 0;
    /// How much it logs (-q, -v where it has them).
    virtual Verbosity verbosity() const { return Verbosity::Normal; }
};

/// Prints "emutrace: error: WHAT (see 'emutrace COMMAND --help')" and returns 2.
int usage_error(const std::string& command, const std::string& what);

std::unique_ptr<Subcommand> run_subcommand();
std::unique_ptr<Subcommand> replay_subcommand();
std::unique_ptr<Subcommand> dump_subcommand();
std::unique_ptr<Subcommand> cfg_subcommand();
std::unique_ptr<Subcommand> crosscheck_subcommand();
std::unique_ptr<Subcommand> decode_subcommand();
std::unique_ptr<Subcommand> ringdump_subcommand();
std::unique_ptr<Subcommand> patch_subcommand();
std::unique_ptr<Subcommand> overhead_subcommand();
std::unique_ptr<Subcommand> wcet_subcommand();
std::unique_ptr<Subcommand> silicon_subcommand();
std::unique_ptr<Subcommand> campaign_subcommand();
std::unique_ptr<Subcommand> markers_subcommand();
std::unique_ptr<Subcommand> analyses_subcommand();
std::unique_ptr<Subcommand> info_subcommand();

}  // namespace emutrace::app::cli
