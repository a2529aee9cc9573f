#pragma once
// The options `run` and `replay` share: the firmware, the scenario and its overrides, the limits,
// the result files, the progress line, the registered analyses' options, -v and -q.
#include <string>

#include "app/cli/analysis_options.h"
#include "app/cli/command_line.h"
#include "app/commands.h"

namespace emutrace::app::cli {

class RunOptionsDeclaration {
public:
    /// The firmware, scenario, machine, limits and outputs.
    void declare_machine(Command& cmd);
    /// The registered analyses' options, then -v and -q (after the command's own options in --help).
    void declare_analyses(Command& cmd, const AnalysisRegistry& registry);
    /// After parsing: the values CLI11 does not check, checked (ConfigError), and the outputs and
    /// analysis options given, in `options.options`.
    void finish();
    Verbosity verbosity() const { return verbose_ ? Verbosity::Verbose : quiet_ ? Verbosity::Quiet : Verbosity::Normal; }

    RunOptions options;

private:
    std::string max_instructions_, wall_clock_, progress_ = "auto";
    bool verbose_ = false, quiet_ = false;
    NamedOutputs outputs_;
    AnalysisOptions analyses_;
};

}  // namespace emutrace::app::cli
