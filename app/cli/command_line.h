#pragma once
// The command line as the subcommands declare it: commands, options and flags with their checks.
// It wraps CLI11 so that only command_line.cpp compiles CLI11, which costs 5-8 s per object
// (its validators and templates are built in every object that includes it; docs/testing.md).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace emutrace::app::cli {

/// One declared option; each setter returns it for chaining.
class Option {
public:
    explicit Option(CLI::Option* o) : o_(o) {}
    Option& required();
    Option& existing_file();
    Option& existing_directory();
    Option& one_of(const std::vector<std::string>& values);
    Option& range(double low, double high);
    Option& count_range(long long low, long long high);  ///< a whole number in [low, high], said as one
    Option& non_negative();
    Option& type_name(const std::string& name);
    Option& no_extra_args();  ///< one value per occurrence
    /// After parsing: whether it was given.
    bool given() const;

private:
    CLI::Option* o_;
};

/// A command or subcommand: what it takes, and after parsing whether it was the one given.
class Command {
public:
    explicit Command(CLI::App* app) : app_(app) {}
    Option option(const std::string& names, std::string& into, const std::string& help);
    Option option(const std::string& names, std::vector<std::string>& into, const std::string& help);
    Option option(const std::string& names, unsigned& into, const std::string& help);
    Option option(const std::string& names, std::uint64_t& into, const std::string& help);
    Option option(const std::string& names, double& into, const std::string& help);
    Option option(const std::string& names, std::optional<std::string>& into, const std::string& help);
    Option option(const std::string& names, std::optional<std::uint64_t>& into, const std::string& help);
    Option flag(const std::string& names, bool& into, const std::string& help);
    /// A flag whose value is only whether it was given (Option::given).
    Option flag(const std::string& names, const std::string& help);
    bool has_option(const std::string& name) const;
    Command subcommand(const std::string& name, const std::string& description);
    void footer(const std::string& text);
    /// After parsing: whether this command was given.
    bool given() const;

private:
    CLI::App* app_;
};

/// The emutrace command line: its top-level options, then parse().
class Parser {
public:
    explicit Parser(const std::string& description);
    ~Parser();
    Command root();
    /// Parses; returns the exit status to end with (0 after --help, 2 on an error it printed),
    /// or -1 to go on.
    int parse(int argc, char** argv);

private:
    std::unique_ptr<CLI::App> app_;
};

}  // namespace emutrace::app::cli
