// emutrace overhead: the probe effect of on-target tracing predicted before deploying (the entry/
// exit tracing paper's Figure 6, configurations a/b/c): the original build (a, with --original),
// the instrumented build with every hook disabled (b) and with a selection enabled (c) run on the
// scenario; the constraints' times and the work cycles of each, and, with --budget, the paper's
// iterative de-selection: the most frequently called traced function is disabled until c is
// within the budget of b, and the `emutrace patch` command that makes that build is printed.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "config/text_file.h"
#include "config/units.h"
#include "decode/hook_patcher.h"
#include "emutrace/config_error.h"
#include "emutrace/session.h"

namespace emutrace::app {
namespace {

struct Measured {
    std::uint64_t work = 0;                       ///< cycles not asleep
    std::map<std::string, double> constraints;    ///< mean cycles per window
    std::map<std::string, std::uint64_t> calls;   ///< per function, as emutrace's call tracer saw them
    std::map<std::string, std::uint64_t> cycles;  ///< per function, inclusive
};

Measured measure(const AnalysisRegistry& registry, const std::string& elf, const std::string& scenario) {
    RunRequest r;
    r.firmware = elf;
    r.scenario = scenario;
    r.machine.echo_output = false;
    r.scenario_outputs = false;
    r.options["calltrace"] = "";
    Session session(registry, r);
    RunReport report = session.run();
    if (!report.error.empty()) throw ConfigError(elf + ": the run did not complete: " + report.error);
    const nlohmann::json j = nlohmann::json::parse(report.json);
    Measured m;
    m.work = report.totals.cycles - std::min(report.totals.cycles, report.totals.sleep_cycles);
    for (const auto& c : j["calltrace"]["constraints"]) m.constraints[c["name"]] = c["mean_cycles"].get<double>();
    for (const auto& f : j["calltrace"]["functions"]) {
        m.calls[f["function"]] = f["calls"];
        m.cycles[f["function"]] = f["inclusive_cycles"];
    }
    return m;
}

// c's worst growth over b: the constraint that grew most, or the work when there is none.
double overhead(const Measured& c, const Measured& b) {
    double worst = 0;
    for (const auto& [name, mean] : c.constraints) {
        auto base = b.constraints.find(name);
        if (base != b.constraints.end() && base->second > 0) worst = std::max(worst, mean / base->second - 1);
    }
    if (c.constraints.empty() && b.work) worst = static_cast<double>(c.work) / static_cast<double>(b.work) - 1;
    return worst;
}

std::string percent(double base, double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", base > 0 ? 100.0 * (value / base - 1) : 0.0);
    return buf;
}

}  // namespace

int overhead_command(const AnalysisRegistry& registry, const OverheadOptions& o) {
    if (o.scenario.empty()) throw ConfigError("overhead: the runs need the board's scenario (-s)");
    std::optional<double> budget;
    if (!o.budget.empty()) {
        std::string text = o.budget;
        const bool pct = !text.empty() && text.back() == '%';
        if (pct) text.pop_back();
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end || v < 0) throw ConfigError("--budget: expected a growth such as 5% or 0.05, got '" + o.budget + "'");
        budget = pct ? v / 100 : v;
    }
    char dir_template[] = "/tmp/emutrace-overhead.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) throw ConfigError("overhead: cannot make a temporary directory");
    const std::string b_elf = std::string(dir) + "/b.elf", c_elf = std::string(dir) + "/c.elf";

    decode::HookPatcher off(o.elf);
    off.set("*", false);
    off.write(b_elf);
    std::set<std::string> functions, enabled;
    for (const auto& s : off.sites()) functions.insert(s.function);
    for (const auto& f : functions) {
        bool on = o.enable.empty();
        for (const auto& g : o.enable) on = on || fnmatch(g.c_str(), f.c_str(), 0) == 0;
        if (on) enabled.insert(f);
    }
    auto build_c = [&] {
        decode::HookPatcher c(b_elf);
        for (const auto& f : enabled) c.set(f, true);
        c.write(c_elf);
    };

    std::optional<Measured> a;
    if (!o.original.empty()) a = measure(registry, o.original, o.scenario);
    const Measured b = measure(registry, b_elf, o.scenario);
    build_c();
    Measured c = measure(registry, c_elf, o.scenario);
    const std::size_t initial = enabled.size();
    std::vector<std::pair<std::string, std::uint64_t>> dropped;  // (function, its calls when dropped)
    // The paper's de-selection: the most frequently called traced function goes first.
    while (budget && overhead(c, b) > *budget && !enabled.empty()) {
        std::string top;
        std::uint64_t most = 0;
        for (const auto& f : enabled) {
            auto n = c.calls.find(f);
            const std::uint64_t calls = n == c.calls.end() ? 0 : n->second;
            if (top.empty() || calls > most) top = f, most = calls;
        }
        enabled.erase(top);
        dropped.emplace_back(top, most);
        build_c();
        c = measure(registry, c_elf, o.scenario);
    }
    std::remove(b_elf.c_str());
    std::remove(c_elf.c_str());
    rmdir(dir);

    std::printf("overhead of on-target tracing: %s on %s\n", o.elf.c_str(), o.scenario.c_str());
    std::printf("  configurations: %sb every hook disabled, c %zu of %zu instrumented functions traced\n",
                a ? ("a the original build (" + o.original + "), ").c_str() : "", enabled.size(), functions.size());
    std::printf("  %-30s %14s %14s %10s %14s %10s\n", "constraint (mean cycles)", "a", "b", "b vs a", "c", "c vs b");
    for (const auto& [name, mean] : b.constraints) {
        const double av = a && a->constraints.count(name) ? a->constraints.at(name) : 0, cv = c.constraints.count(name) ? c.constraints.at(name) : 0;
        std::printf("  %-30s %14.0f %14.0f %10s %14.0f %10s\n", name.c_str(), av, mean, a ? percent(av, mean).c_str() : "-", cv,
                    percent(mean, cv).c_str());
    }
    std::printf("  %-30s %14s %14s %10s %14s %10s\n", "work (cycles not asleep)", a ? config::grouped(a->work).c_str() : "-",
                config::grouped(b.work).c_str(), a ? percent(static_cast<double>(a->work), static_cast<double>(b.work)).c_str() : "-",
                config::grouped(c.work).c_str(), percent(static_cast<double>(b.work), static_cast<double>(c.work)).c_str());
    // Where c's time goes: the traced functions by their growth over b.
    std::vector<std::pair<std::string, std::int64_t>> growth;
    for (const auto& f : enabled) {
        auto cv = c.cycles.find(f);
        auto bv = b.cycles.find(f);
        if (cv != c.cycles.end())
            growth.emplace_back(f, static_cast<std::int64_t>(cv->second) - static_cast<std::int64_t>(bv == b.cycles.end() ? 0 : bv->second));
    }
    std::sort(growth.begin(), growth.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::printf("  traced functions by the cycles tracing adds (c against b, inclusive):\n");
    for (std::size_t i = 0; i < growth.size() && i < 10; ++i)
        std::printf("    %-30s %+14lld cycles  %10llu calls\n", growth[i].first.c_str(), static_cast<long long>(growth[i].second),
                    static_cast<unsigned long long>(c.calls.count(growth[i].first) ? c.calls.at(growth[i].first) : 0));
    if (budget) {
        std::printf("  budget %.1f%% over b: %s after disabling %zu of %zu functions, most frequently called first:\n", 100 * *budget,
                    overhead(c, b) <= *budget ? "met" : "NOT met", dropped.size(), initial);
        for (const auto& [f, n] : dropped) std::printf("    %-30s %10llu calls\n", f.c_str(), static_cast<unsigned long long>(n));
        std::string cmd = "emutrace patch " + o.elf + " --disable-all";
        for (const auto& f : enabled) cmd += " --enable " + f;
        std::printf("  the build: %s -o selective.elf\n", (cmd).c_str());
    }
    return budget && overhead(c, b) > *budget ? 1 : 0;
}

}  // namespace emutrace::app
