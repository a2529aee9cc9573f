#pragma once
// The registered analyses' outputs and options on a subcommand (run, replay, crosscheck,
// ringdump), so that an analysis added to the registry or loaded from a plug-in needs no CLI code.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/command_line.h"
#include "emutrace/registry.h"

namespace emutrace::app::cli {

class AnalysisOptions {
public:
    /// Declares every registered analysis's outputs and flags on `cmd` (outputs.events_limit is
    /// --events-limit); an option the command already has keeps the command's meaning.
    void declare(Command& cmd, const AnalysisRegistry& registry);
    /// Declares every registered source's options too (the decode command reads any source).
    void declare_sources(Command& cmd, const AnalysisRegistry& registry);
    /// After parsing: the ones given, by their registry name, into `into`.
    void collect(std::map<std::string, std::string>& into) const;

private:
    void add(Command& cmd, const AnalysisOption& o, bool output);
    struct Declared {
        std::string name;
        Option option;
        std::shared_ptr<std::string> value;
    };
    std::vector<Declared> declared_;
};

/// Options whose value goes into an options map under `name` when given (--json, --junit, ...).
class NamedOutputs {
public:
    void add(Command& cmd, const std::string& flag, const std::string& name, const std::string& help, const std::string& type_name = "");
    void collect(std::map<std::string, std::string>& into) const;

private:
    struct Output {
        std::string name;
        Option option;
        std::shared_ptr<std::string> value;
    };
    std::vector<Output> outputs_;
};

}  // namespace emutrace::app::cli
