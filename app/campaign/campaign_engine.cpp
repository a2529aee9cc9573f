#include "app/campaign/campaign_engine.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "config/input_file.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "emutrace/config_error.h"

extern char** environ;

namespace emutrace::app {
namespace {

namespace fs = std::filesystem;

// A firmware named as the build names it: build/firmware/<name>.elf next to the emutrace binary.
std::string resolve_firmware(const std::string& firmware, const std::string& emutrace) {
    if (firmware.empty() || firmware.find('/') != std::string::npos || firmware.ends_with(".elf")) return firmware;
    fs::path elf = fs::path(emutrace).parent_path() / "firmware" / (firmware + ".elf");
    if (!fs::exists(elf)) throw ConfigError("firmware '" + firmware + "' is not built (looked for " + elf.string() + ")");
    return elf.string();
}

std::string duration(double seconds) {
    char text[32];
    if (seconds < 60)
        std::snprintf(text, sizeof text, "%.0fs", seconds);
    else if (seconds < 3600)
        std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
    else
        std::snprintf(text, sizeof text, "%dh%02dm", static_cast<int>(seconds) / 3600, static_cast<int>(seconds) % 3600 / 60);
    return text;
}

// A case's status file: its run's exit status; -1 (not complete) when missing or not a number.
int read_status(const fs::path& file) {
    try {
        const std::string text = config::read_input(file.string(), "case status", 64);
        char* end = nullptr;
        const long status = std::strtol(text.c_str(), &end, 10);
        return end != text.c_str() && status >= 0 && status <= 255 ? static_cast<int>(status) : -1;
    } catch (const ConfigError&) {
        return -1;
    }
}

}  // namespace

pid_t start_process(const std::vector<std::string>& command, const std::string& stdout_file, const std::string& stderr_file, const std::string& cwd) {
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&files, cwd.c_str());
    posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (stderr_file == stdout_file)  // one file, one offset: the two streams interleave as written
        posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
    else
        posix_spawn_file_actions_addopen(&files, STDERR_FILENO, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> argv = command;
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0].c_str(), &files, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    if (rc != 0) throw ConfigError(argv[0] + ": cannot start it: " + std::strerror(rc));
    return pid;
}

int run_process(const std::vector<std::string>& argv, const std::string& stdout_file, const std::string& stderr_file) {
    pid_t pid = start_process(argv, stdout_file, stderr_file);
    int raw = 0;
    while (waitpid(pid, &raw, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

std::string case_dir(const Campaign& c, const CampaignCase& k) {
    return (fs::path(c.results) / k.id()).string();
}

int case_status(const Campaign& c, const CampaignCase& k) {
    return read_status(fs::path(case_dir(c, k)) / "status");
}

std::vector<std::string> case_command(const CampaignCase& k, const EngineOptions& options, const std::string& dir) {
    std::vector<std::string> argv{options.emutrace, "run"};
    if (!k.firmware.empty()) argv.push_back(resolve_firmware(k.firmware, options.emutrace));
    if (!k.scenario.empty()) argv.insert(argv.end(), {"-s", k.scenario});
    for (const auto& [path, value] : k.settings) argv.insert(argv.end(), {"--set", path + "=" + value});
    argv.insert(argv.end(), {"--json", dir + "/result.json", "--junit", dir + "/result.xml", "-q", "--exit-status", "emutrace"});
    // What the analyses' merges read beside the result, when the scenario runs them (the WCET
    // analysis's statistics: one bound over all cases).
    for (const auto& o : options.case_outputs) argv.insert(argv.end(), {o.flag(), dir + "/" + o.name + ".json"});
    argv.insert(argv.end(), k.args.begin(), k.args.end());
    return argv;
}

std::vector<CaseOutcome> run_locally(const Campaign& c, const EngineOptions& options) {
    std::error_code error;
    fs::create_directories(c.results, error);
    if (error) throw ConfigError(c.results + ": cannot create the campaign's results directory: " + error.message());
    std::vector<CaseOutcome> outcomes(c.cases.size());
    std::vector<std::size_t> todo;
    const unsigned shards = std::max(options.shard_count, 1u);
    for (const CampaignCase& k : c.cases) {
        outcomes[k.index].index = k.index;
        fs::path status = fs::path(case_dir(c, k)) / "status";
        if (k.index % shards != options.shard_index) {  // another shard's: as it is
            outcomes[k.index] = {k.index, read_status(status), true};
            continue;
        }
        if (options.resume && fs::exists(status)) {
            outcomes[k.index] = {k.index, read_status(status), true};
            continue;
        }
        fs::remove_all(case_dir(c, k), error);
        todo.push_back(k.index);
    }
    const bool tty = isatty(STDERR_FILENO);
    const auto started = std::chrono::steady_clock::now();
    std::size_t done = 0, failed = 0, next = 0, shown = 0;
    auto progress = [&](bool last) {
        if (!options.progress) return;
        // On a terminal the line is redrawn; in a log, a line per tenth of the cases.
        if (!tty && !last && done * 10 / std::max<std::size_t>(todo.size(), 1) == shown) return;
        shown = done * 10 / std::max<std::size_t>(todo.size(), 1);
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::string eta = done ? ", ETA " + duration(elapsed / static_cast<double>(done) * static_cast<double>(todo.size() - done)) : "";
        std::fprintf(stderr, "%scampaign %s: %zu/%zu done, %zu failed, %zu to go%s%s", tty ? "\r\033[K" : "", c.name.c_str(), done, todo.size(),
                     failed, todo.size() - done, last ? "" : eta.c_str(), tty && !last ? "" : "\n");
        std::fflush(stderr);
    };
    std::map<pid_t, std::size_t> running;
    auto start = [&](const CampaignCase& k) {
        const std::string dir = case_dir(c, k);
        fs::create_directories(dir, error);
        std::vector<std::string> argv = case_command(k, options, dir);
        nlohmann::json about = {{"case", k.id()}, {"group", k.group}, {"firmware", k.firmware}, {"scenario", k.scenario}, {"command", argv}};
        for (const auto& [path, value] : k.settings) about["settings"][path] = value;
        config::write_text_file(dir + "/case.json", config::json_text(about, 2) + "\n", "case description");
        // In its own directory: outputs a scenario names by a relative path (franking.yaml's
        // Perfetto trace) are the case's own, not one file every case writes at once.
        running[start_process(argv, dir + "/stdout", dir + "/stderr", dir)] = k.index;
    };
    progress(false);
    while (next < todo.size() || !running.empty()) {
        while (next < todo.size() && running.size() < std::max(options.jobs, 1u)) start(c.cases[todo[next++]]);
        int raw = 0;
        pid_t pid = waitpid(-1, &raw, 0);
        if (pid < 0) break;
        auto it = running.find(pid);
        if (it == running.end()) continue;
        const CampaignCase& k = c.cases[it->second];
        running.erase(it);
        int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        outcomes[k.index].status = status;
        // Written last: its presence says the case is complete (--resume). A killed case has none.
        if (status >= 0) config::write_text_file(case_dir(c, k) + "/status", std::to_string(status) + "\n", "case status");
        ++done;
        failed += status != 0;
        progress(false);
    }
    if (!todo.empty()) progress(true);
    return outcomes;
}

}  // namespace emutrace::app
