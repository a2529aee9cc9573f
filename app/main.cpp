// emutrace: run ARM Cortex-M firmware in an emulator and turn the run into trace streams.
// The subcommands declare their own options (app/cli/, one file each); this file loads the
// plug-ins, parses, sets up logging and runs the one given.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/subcommand.h"
#include "emu/stop_signal.h"
#include "emutrace/config_error.h"

namespace {

using emutrace::app::Verbosity;
namespace cli = emutrace::app::cli;

// One row per subcommand, in the order `emutrace --help` lists them.
using Factory = std::unique_ptr<cli::Subcommand> (*)();
constexpr Factory kSubcommands[] = {
    cli::run_subcommand,        cli::replay_subcommand,   cli::dump_subcommand,    cli::cfg_subcommand,      cli::decode_subcommand,
    cli::crosscheck_subcommand, cli::ringdump_subcommand, cli::patch_subcommand,   cli::overhead_subcommand, cli::wcet_subcommand,
    cli::silicon_subcommand,    cli::campaign_subcommand, cli::markers_subcommand, cli::analyses_subcommand, cli::info_subcommand,
};

void set_up_logging(Verbosity v) {
    auto logger = spdlog::stderr_color_st("emutrace");
    logger->set_pattern("emutrace: %^%l%$: %v");
    logger->set_level(v == Verbosity::Verbose ? spdlog::level::debug : v == Verbosity::Quiet ? spdlog::level::err : spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

// --plugin FILE (or --plugin=FILE) anywhere on the command line: loaded before the options are
// declared, so that a plug-in's own options parse like the built-in ones.
std::vector<std::string> plugin_arguments(int argc, char** argv) {
    std::vector<std::string> out;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--plugin" && i + 1 < argc)
            out.push_back(argv[++i]);
        else if (a.starts_with("--plugin="))
            out.push_back(a.substr(9));
    }
    return out;
}

// "emutrace: error: WHAT" on one line, whatever WHAT holds: a value the user or an input gave
// may carry a newline or a terminal's control sequence. Returns the status of bad input.
int error_line(const char* kind, std::string_view what) {
    std::string line;
    for (const char c : what) {
        if (c == '\n')
            line += "\\n";
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            line += '?';
        else
            line += c;
    }
    std::fprintf(stderr, "emutrace: %s: %s\n", kind, line.c_str());
    return 2;
}

int run(int argc, char** argv) {
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    for (const auto& plugin : plugin_arguments(argc, argv)) registry.load_plugin(plugin);

    cli::Parser parser{"emutrace: runs unmodified ARM Cortex-M firmware in an emulator and reports what it did."};
    cli::Command root = parser.root();
    std::vector<std::string> plugins;
    root.option("--plugin", plugins, "Load out-of-tree analyses from this shared object (repeatable); see 'emutrace analyses'").type_name("FILE");
    root.footer("Run 'emutrace <command> --help' for a command's options. Scenario format: docs/scenario.md.");

    std::vector<std::pair<std::unique_ptr<cli::Subcommand>, cli::Command>> subcommands;
    for (Factory make : kSubcommands) {
        auto s = make();
        cli::Command command = s->declare(root, registry);
        subcommands.emplace_back(std::move(s), command);
    }
    if (int status = parser.parse(argc, argv); status >= 0) return status;
    try {
        for (auto& [subcommand, command] : subcommands) {
            if (!command.given()) continue;
            set_up_logging(subcommand->verbosity());
            emutrace::emu::catch_stop_signals();  // Ctrl-C ends a run with its outputs written
            return subcommand->run(registry);
        }
        return 2;  // the parser requires one subcommand: no other way here
    } catch (const emutrace::ConfigError& e) {
        return error_line("error", e.what());
    } catch (const std::filesystem::filesystem_error& e) {  // a path the user gave: a link loop, a folder it may not read
        return error_line("error", (e.path1().empty() ? std::string() : e.path1().string() + ": ") + e.code().message());
    } catch (const std::exception& e) {
        return error_line("internal error", e.what());
    }
}

// The standard output is a result like any file: a full disk or /dev/full shows only when the
// buffered text reaches it. A run whose output was lost cannot end in success.
int with_standard_output_written(int status) {
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout) && std::cout.good()) return status;
    std::fprintf(stderr, "emutrace: error: writing the standard output failed: %s\n", error ? std::strerror(error) : "a write failed (a full disk?)");
    return status == 0 ? 2 : status;
}

}  // namespace

int main(int argc, char** argv) {
    int status = 2;
    try {
        status = run(argc, argv);
    } catch (const emutrace::ConfigError& e) {  // a plug-in that does not load
        status = error_line("error", e.what());
    }
    return with_standard_output_written(status);
}
