#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "config/units.h"
#include "emu/stop_signal.h"
#include "emutrace/config_error.h"
#include "report/page.h"
#include "session/scenario.h"
#include "silicon/silicon_report.h"
#include "silicon/silicon_suite.h"

namespace emutrace::app {
using namespace silicon;
namespace {

constexpr std::size_t kMismatchesShown = 4;  // per configuration in the text report; --json has the first kMostMismatchesKept

struct Tally {
    std::size_t configurations = 0, exact = 0;
    double rate() const { return configurations ? static_cast<double>(exact) / static_cast<double>(configurations) : 0; }
    void add(const Tally& t) {
        configurations += t.configurations;
        exact += t.exact;
    }
};

// The error of every compared word, emulated - measured, in signed bins.
constexpr std::array<const char*, kErrorBins> kBins = {"<-10", "-10..-6", "-5..-3", "-2", "-1", "0", "+1", "+2", "+3..+5", "+6..+10", ">+10"};

struct Errors {
    std::array<std::uint64_t, kBins.size()> bins{};
    std::uint64_t words = 0, abs_error = 0, nonzero = 0;
    double relative_error = 0;
    /// Mean over the words measured non-zero of |emulated - measured| in percent of measured;
    /// negative when every word measured 0.
    double mae_percent() const { return nonzero ? 100.0 * relative_error / static_cast<double>(nonzero) : -1; }
    double mae_cycles() const { return words ? static_cast<double>(abs_error) / static_cast<double>(words) : 0; }
};

using RegionErrors = std::map<std::string, Errors>;  // by dumped region

void add_errors(const SiliconConfiguration& c, RegionErrors& into) {
    for (const auto& r : c.regions) {
        Errors& e = into[r.region];
        e.words += r.words;
        e.abs_error += r.abs_error;
        e.nonzero += r.nonzero;
        e.relative_error += r.relative_error;
        for (std::size_t b = 0; b < kErrorBins; ++b) e.bins[b] += r.bins[b];
    }
}

void print_row(const std::string& name, const Tally& t) {
    std::printf("  %-58s %6zu %6zu  %6.1f%%\n", name.c_str(), t.configurations, t.exact, 100.0 * t.rate());
}

std::string mae_text(const Errors& e) {
    char buf[32];
    if (e.mae_percent() < 0) return "-";
    std::snprintf(buf, sizeof buf, "%.3f%%", e.mae_percent());
    return buf;
}

// Breaks a comma-separated list into lines of at most `width` characters, continued with `indent`.
std::string wrap(const std::string& list, std::size_t width, const std::string& indent) {
    std::string out, line;
    std::size_t start = 0;
    while (start < list.size()) {
        std::size_t end = list.find(", ", start);
        std::string item = list.substr(start, end == std::string::npos ? std::string::npos : end + 2 - start);
        if (!line.empty() && line.size() + item.size() > width) {
            out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n" + indent;
            line.clear();
        }
        line += item;
        start = end == std::string::npos ? list.size() : end + 2;
    }
    return out + line;
}

bool differs(const Errors& e) {
    return e.bins[error_bin(0)] != e.words;
}

void print_errors(const std::string& name, const Errors& e) {
    std::string bins;
    for (std::size_t i = 0; i < kBins.size(); ++i)
        if (e.bins[i]) bins += "  " + std::string(kBins[i]) + ": " + std::to_string(e.bins[i]);
    std::printf("  %-26s %7llu words  mae %7s %s\n", name.c_str(), static_cast<unsigned long long>(e.words), mae_text(e).c_str(), bins.c_str());
}

nlohmann::json errors_json(const RegionErrors& regions) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, e] : regions) {
        nlohmann::json bins = nlohmann::json::object();
        for (std::size_t i = 0; i < kBins.size(); ++i) bins[kBins[i]] = e.bins[i];
        j[name] = {{"words", e.words},
                   {"histogram", bins},
                   {"mae_cycles", e.mae_cycles()},
                   {"mae_percent", e.mae_percent() < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.mae_percent())}};
    }
    return j;
}

nlohmann::json tally_json(const Tally& t) {
    return {{"configurations", t.configurations}, {"exact", t.exact}, {"rate", t.rate()}};
}

// Compiled programs' whole-program cycle counts: how many are within 0.5% and 1% of the board's,
// and the worst.
struct WholeProgramTally {
    std::size_t configurations = 0, within_half_percent = 0, within_one_percent = 0;
    WholeProgram worst;
    std::string worst_name;  ///< "category/test #N"
    void add(const WholeProgram& w, const std::string& name) {
        ++configurations;
        double e = std::abs(w.error_percent());
        within_half_percent += e <= 0.5;
        within_one_percent += e <= 1.0;
        if (worst_name.empty() || e > std::abs(worst.error_percent())) worst = w, worst_name = name;
    }
    void add(const WholeProgramTally& t) {
        configurations += t.configurations;
        within_half_percent += t.within_half_percent;
        within_one_percent += t.within_one_percent;
        if (!t.worst_name.empty() && (worst_name.empty() || std::abs(t.worst.error_percent()) > std::abs(worst.error_percent())))
            worst = t.worst, worst_name = t.worst_name;
    }
};

// "42 of 66 within 0.5%, 56 within 1%, worst +8.61% (+123456 cycles, embench/edn #3)"
std::string whole_program_text(const WholeProgramTally& t, bool name_worst) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%zu of %zu within 0.5%%, %zu within 1%%, worst %+.2f%% (%+lld cycles%s%s)", t.within_half_percent,
                  t.configurations, t.within_one_percent, t.worst.error_percent(), static_cast<long long>(t.worst.error()), name_worst ? ", " : "",
                  name_worst ? t.worst_name.c_str() : "");
    return buf;
}

nlohmann::json whole_program_json(const WholeProgramTally& t) {
    return {{"configurations", t.configurations},
            {"within_half_percent", t.within_half_percent},
            {"within_one_percent", t.within_one_percent},
            {"worst_percent", t.worst.error_percent()},
            {"worst_cycles", t.worst.error()},
            {"worst", t.worst_name}};
}

struct Summary {
    std::map<std::string, Tally> categories;
    WholeProgramTally whole_given, whole_validation;
    std::map<std::string, RegionErrors> category_errors;
    RegionErrors errors;  // all categories
    Tally total, given, validation;
};

nlohmann::json to_json(const SiliconOptions& o, emu::TimingMode timing, const std::vector<SiliconTest>& tests, const Summary& s) {
    using nlohmann::json;
    json j_tests = json::array();
    for (const auto& t : tests) {
        json configs = json::array();
        for (const auto& c : t.configurations) {
            json mismatches = json::array();
            for (const auto& m : c.mismatches)
                mismatches.push_back(
                    {{"region", m.region}, {"index", m.index}, {"measured", m.measured}, {"emulated", m.emulated}, {"error", m.error()}});
            configs.push_back({{"number", c.number},
                               {"configuration", c.name},
                               {"exact", c.exact},
                               {"error", c.error},
                               {"instructions", c.instructions},
                               {"mismatches", mismatches},
                               {"mismatched_words", c.mismatched_words},
                               {"code", c.code}});
            if (c.whole_program)
                configs.back()["whole_program"] = {{"measured", c.whole_program->measured},
                                                   {"emulated", c.whole_program->emulated},
                                                   {"error_cycles", c.whole_program->error()},
                                                   {"error_percent", c.whole_program->error_percent()}};
        }
        j_tests.push_back({{"category", t.category},
                           {"test", t.name},
                           {"set", t.validation ? "validation" : "given"},
                           {"configurations", t.configurations.size()},
                           {"exact", t.exact()},
                           {"results", configs}});
    }
    json j_categories = json::object();
    for (const auto& [name, t] : s.categories) {
        j_categories[name] = tally_json(t);
        j_categories[name]["errors"] = errors_json(s.category_errors.at(name));
    }
    json sets = json::object();
    if (o.split != "validation") sets["given"] = tally_json(s.given);
    if (o.split != "given") sets["validation"] = tally_json(s.validation);
    json whole = json::object();
    if (s.whole_given.configurations) whole["given"] = whole_program_json(s.whole_given);
    if (s.whole_validation.configurations) whole["validation"] = whole_program_json(s.whole_validation);
    return {{"board", o.board},
            {"timing", std::string(emu::to_string(timing))},
            {"whole_program", whole},
            {"split", o.split},
            {"max_instructions", o.max_instructions},
            {"configurations", s.total.configurations},
            {"exact", s.total.exact},
            {"rate", s.total.rate()},
            {"sets", sets},
            {"categories", j_categories},
            {"errors", errors_json(s.errors)},
            {"tests", j_tests}};
}

std::string board_summary(const emu::MachineConfig& m) {
    std::string text = std::string(m.core.name) + " at " + std::to_string(m.clock_hz / 1'000'000) + " MHz";
    for (const auto& r : m.memory) {
        std::uint32_t kib = r.size / 1024;
        text += ", " + r.name + " " + config::hex32(r.base) + " " + (kib % 1024 ? std::to_string(kib) + " KiB" : std::to_string(kib / 1024) + " MiB");
    }
    return text;
}

// The preset a measurement folder names: CMEmu's corpus keeps each board's tests under the part's
// name ("stm32f100rbt6/instructions"), so the innermost path component that starts with a preset's
// name picks it; stm32f100 (the repository's own measurements) otherwise.
std::string board_for_folder(const std::string& dir) {
    std::vector<std::string> names = session::board_preset_names();
    std::filesystem::path path = std::filesystem::absolute(dir).lexically_normal();
    std::vector<std::string> parts;
    for (const auto& part : path) parts.push_back(part.string());
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
        std::string lower = *part;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        for (const auto& name : names)
            if (lower.starts_with(name)) return name;
    }
    return "stm32f100";
}

// How each configuration runs: the board (with --timing), the instruction and host-time limits,
// the split of the tests.
SiliconRunOptions run_options(const SiliconOptions& o, const session::ScenarioPrototype& board, std::optional<emu::TimingMode> timing) {
    SiliconRunOptions run;
    run.board = [&board, timing] {
        emu::MachineConfig m = board.make().machine;
        if (timing) m.timing = *timing;
        return m;
    };
    run.max_instructions = o.max_instructions;
    // Without --timeout: room for 1 M instructions a second (the emulator runs tens), at least 30 s;
    // with no instruction limit, 300 s of host time. Without an instruction limit, a compiled
    // program gets 1 s per 2 M cycles the board measured over it if that is longer (the emulator
    // runs tens of millions a second): every configuration of a compiled set runs to its end
    // (-O0 builds take billions of instructions), also on a slow host, and a runaway still ends.
    run.wall_clock_seconds = o.timeout >= 0 ? o.timeout : o.max_instructions ? std::max(30.0, static_cast<double>(o.max_instructions) / 1e6) : 300;
    if (!o.max_instructions && run.wall_clock_seconds > 0) run.seconds_per_million_measured_cycles = 0.5;
    // One per core, up to 16: each machine holds about 16 MB, so a many-core host stays near 250 MB.
    run.jobs = o.jobs ? o.jobs : std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    run.split = o.split == "given" ? Split::Given : o.split == "validation" ? Split::Validation : Split::All;
    return run;
}

void print_header(const SiliconOptions& o, const SiliconRunOptions& run, const session::Scenario& preset, emu::TimingMode timing) {
    std::printf("silicon: %s on board %s (%s), %s timing\n", o.dir.c_str(), o.board.c_str(), board_summary(preset.machine).c_str(),
                std::string(emu::to_string(timing)).c_str());
    std::printf("  tests: %s%s; %u at a time\n", o.split.c_str(),
                run.split == Split::All          ? " (given, and validation: every 5th test of a category)"
                : run.split == Split::Validation ? " (every 5th test of a category, held aside)"
                                                 : " (all but every 5th test of a category)",
                run.jobs);
    const std::string limit = o.max_instructions ? "after " + std::to_string(o.max_instructions) + " instructions or " : "after ";
    const std::string longer = run.seconds_per_million_measured_cycles > 0
                                   ? " (a compiled program: 1 s per " +
                                         std::to_string(static_cast<int>(1 / run.seconds_per_million_measured_cycles)) +
                                         " M cycles measured, if longer)"
                                   : "";
    std::printf("  each run stops at its exit, or %s%.0f s of host time%s\n", limit.c_str(), run.wall_clock_seconds, longer.c_str());
    std::printf("  %-58s %6s %6s  %7s\n", "category/test", "configs", "exact", "rate");
}

// A test as it finishes: its row, its whole-program counts, its words' errors, and (up to --show)
// what its configurations that did not match ran.
void take_test(const SiliconTest& t, Split split, std::size_t show, Summary& s, std::size_t& details) {
    Tally tally{t.configurations.size(), t.exact()};
    print_row(t.category + "/" + t.name + (t.validation && split == Split::All ? " (validation)" : ""), tally);
    s.categories[t.category].add(tally);
    s.total.add(tally);
    (t.validation ? s.validation : s.given).add(tally);
    WholeProgramTally whole;
    for (const auto& config : t.configurations)
        if (config.whole_program) whole.add(*config.whole_program, t.category + "/" + t.name + " #" + std::to_string(config.number));
    if (whole.configurations) {
        std::printf("    whole program: %s\n", whole_program_text(whole, false).c_str());
        (t.validation ? s.whole_validation : s.whole_given).add(whole);
    }
    for (const auto& config : t.configurations) {
        add_errors(config, s.category_errors[t.category]);
        add_errors(config, s.errors);
        if (config.exact || details >= show) continue;
        ++details;
        std::printf("    #%u %s\n", config.number, config.name.substr(0, 100).c_str());
        if (!config.error.empty()) std::printf("      did not finish: %s\n", config.error.c_str());
        for (std::size_t i = 0; i < std::min(config.mismatches.size(), kMismatchesShown); ++i) {
            const auto& m = config.mismatches[i];
            std::printf("      %s[%u]: measured %u, emulated %u (%+lld)\n", m.region.c_str(), m.index, m.measured, m.emulated,
                        static_cast<long long>(m.error()));
        }
        if (config.mismatched_words > kMismatchesShown)
            std::printf("      ... %llu words differ in all\n", static_cast<unsigned long long>(config.mismatched_words));
        for (const auto& line : config.code) std::printf("        %s\n", line.c_str());
    }
}

// The totals: by category, the words' errors, what did not finish, given and validation apart.
void print_totals(const Summary& s, const std::vector<SiliconTest>& tests, Split split) {
    std::printf("  by category:\n");
    for (const auto& [name, t] : s.categories) print_row(name, t);
    print_row("total", s.total);
    bool any_differs = std::any_of(s.errors.begin(), s.errors.end(), [](const auto& r) { return differs(r.second); });
    if (any_differs)
        std::printf(
            "  error per word, emulated - measured in cycles, where a word differs (mae: mean of |error| in %% of the\n"
            "  measured word, over the words not measured 0):\n");
    for (const auto& [category, regions] : s.category_errors)
        for (const auto& [region, e] : regions)
            if (differs(e)) print_errors(category + "/" + region, e);
    std::string matching;
    for (const auto& [region, e] : s.errors)
        if (differs(e))
            print_errors("total/" + region, e);
        else
            matching += (matching.empty() ? "" : ", ") + region;
    if (!matching.empty()) std::printf("  every word matches in: %s\n", wrap(matching, 100, "    ").c_str());
    std::size_t failed = 0;
    for (const auto& t : tests)
        for (const auto& c : t.configurations) failed += !c.error.empty();
    if (failed) std::printf("  %zu configurations did not finish (--show N says why, --json has all)\n", failed);
    // A set with no configurations is said to be empty, not to be 0% exact (a folder whose
    // categories hold fewer than five tests has no validation set).
    auto rate = [](const Tally& t) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f%% (%zu of %zu)", 100.0 * t.rate(), t.exact, t.configurations);
        return t.configurations ? std::string(buf) : std::string("none");
    };
    if (split == Split::All) std::printf("  exact: given %s   validation %s\n", rate(s.given).c_str(), rate(s.validation).c_str());
    // A compiled set is judged on its whole-program counts: the headline, given and validation apart.
    for (const auto& [set, whole] : {std::pair{"given", &s.whole_given}, std::pair{"validation", &s.whole_validation}})
        if (whole->configurations) std::printf("  whole-program cycles, %s: %s\n", set, whole_program_text(*whole, true).c_str());
}

// The progress line on stderr while configurations run: tests and configurations done, and those
// running with their host time so far, redrawn in place and erased before a test's row is printed
// (rows go to stdout, which may be the same terminal).
class ProgressLine {
public:
    explicit ProgressLine(bool on) : on_(on) {}
    ~ProgressLine() { erase(); }

    void draw(const SuiteStatus& s) {
        if (!on_) return;
        // "silicon: 3/13 tests, 20 configurations done; embench/edn #2 14s #3 14s", one terminal line:
        // a wrapped line could not be redrawn in place.
        std::string line = "silicon: " + std::to_string(s.tests_done) + "/" + std::to_string(s.tests) + " tests, " +
                           std::to_string(s.configurations_done) + (s.configurations_done == 1 ? " configuration done" : " configurations done");
        std::string test;
        for (const auto& r : s.running) {
            std::string item = (r.test != test ? (test.empty() ? "; " : ", ") + r.test : std::string()) + " #" + std::to_string(r.number) + " " +
                               std::to_string(static_cast<long long>(r.seconds)) + "s";
            test = r.test;
            if (line.size() + item.size() > kWidth) {
                line.resize(std::min(line.size(), kWidth - 4));
                line += " ...";
                break;
            }
            line += item;
        }
        line = "\r" + line;
        std::lock_guard lock(mutex_);
        std::fprintf(stderr, "%s\x1b[K", line.c_str());
        std::fflush(stderr);
        drawn_ = true;
    }
    /// Runs `print` (which writes stdout) with the line erased, and keeps a redraw out meanwhile.
    template <class Print>
    void around(Print print) {
        std::lock_guard lock(mutex_);
        erase_locked();
        print();
        std::fflush(stdout);
    }

private:
    static constexpr std::size_t kWidth = 79;
    void erase() {
        std::lock_guard lock(mutex_);
        erase_locked();
    }
    void erase_locked() {
        if (!drawn_) return;
        std::fprintf(stderr, "\r\x1b[K");
        std::fflush(stderr);
        drawn_ = false;
    }
    bool on_, drawn_ = false;
    std::mutex mutex_;
};

void write_outputs(const SiliconOptions& o, const session::Scenario& preset, emu::TimingMode timing, const std::vector<SiliconTest>& tests,
                   const Summary& s) {
    if (o.json.empty() && o.report.empty()) return;
    nlohmann::json result = to_json(o, timing, tests, s);
    if (!o.json.empty()) config::write_text_file(o.json, config::json_text(result, 1) + "\n", "JSON result");
    if (o.report.empty()) return;
    report::Page page;
    page.title = "emutrace silicon: " + o.dir;
    page.facts = {"board " + o.board, board_summary(preset.machine)};
    page.has_verdict = o.min_rate > 0;
    if (page.has_verdict && s.total.rate() < o.min_rate) page.failures.push_back("exact-match rate below --min-rate");
    page.passed = "the exact-match rate is at least --min-rate";
    page.sections.push_back(silicon_report_html(result));
    config::write_text_file(o.report, page.html(), "HTML report");
}

}  // namespace

int silicon_command(const SiliconOptions& given) {
    SiliconOptions o = given;
    if (o.board.empty()) o.board = board_for_folder(o.dir);
    const session::ScenarioPrototype board(session::load_board(o.board));  // its SVD file read once
    const session::Scenario preset = board.make();                         // validated once, here, with its file and line in errors
    std::optional<emu::TimingMode> timing;
    if (!o.timing.empty()) timing = session::timing_option(o.timing);
    const SiliconRunOptions run = run_options(o, board, timing);
    const emu::TimingMode used = timing ? *timing : preset.machine.timing;
    print_header(o, run, preset, used);
    Summary s;
    std::size_t details = 0;
    std::vector<SiliconTest> tests;
    {
        ProgressLine line(o.progress == "always" || (o.progress == "auto" && isatty(STDERR_FILENO)));
        tests = run_silicon_suite(
            o.dir, run, [&](const SiliconTest& t) { line.around([&] { take_test(t, run.split, o.show, s, details); }); },
            [&](const SuiteStatus& status) { line.draw(status); });
    }
    print_totals(s, tests, run.split);
    write_outputs(o, preset, used, tests, s);
    if (const int signal = emu::stop_signal()) return 128 + signal;  // as the shell reports a process the signal ended
    if (o.min_rate > 0 && s.total.rate() < o.min_rate) {
        std::fprintf(stderr, "emutrace: exact-match rate %.2f%% is below --min-rate %.2f%%\n", 100.0 * s.total.rate(), 100.0 * o.min_rate);
        return 1;
    }
    return 0;
}

}  // namespace emutrace::app
