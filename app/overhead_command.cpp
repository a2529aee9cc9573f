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
#include "emutrace/config_error.h"
#include "emutrace/session.h"
#include "sources/ring/hook_patcher.h"

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

// --budget: a growth such as 5% or 0.05.
std::optional<double> parse_budget(const std::string& given) {
    if (given.empty()) return std::nullopt;
    std::string text = given;
    const bool pct = text.back() == '%';
    if (pct) text.pop_back();
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end || v < 0) throw ConfigError("--budget: expected a growth such as 5% or 0.05, got '" + given + "'");
    return pct ? v / 100 : v;
}

// The three builds, b and c patched from the ELF into a directory of their own, measured; c
// loses its most frequently called traced function until it is within the budget.
struct Configurations {
    std::optional<Measured> a;
    Measured b, c;
    std::set<std::string> functions, enabled;
    std::size_t initial = 0;
    std::vector<std::pair<std::string, std::uint64_t>> dropped;  // (function, its calls when dropped)
};

Configurations measure_configurations(const AnalysisRegistry& registry, const OverheadOptions& o, std::optional<double> budget) {
    char dir_template[] = "/tmp/emutrace-overhead.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) throw ConfigError("overhead: cannot make a temporary directory");
    const std::string b_elf = std::string(dir) + "/b.elf", c_elf = std::string(dir) + "/c.elf";
    Configurations k;
    decode::HookPatcher off(o.elf);
    off.set("*", false);
    off.write(b_elf);
    for (const auto& s : off.sites()) k.functions.insert(s.function);
    for (const auto& f : k.functions) {
        bool on = o.enable.empty();
        for (const auto& g : o.enable) on = on || fnmatch(g.c_str(), f.c_str(), 0) == 0;
        if (on) k.enabled.insert(f);
    }
    auto measure_c = [&] {
        decode::HookPatcher c(b_elf);
        for (const auto& f : k.enabled) c.set(f, true);
        c.write(c_elf);
        return measure(registry, c_elf, o.scenario);
    };
    if (!o.original.empty()) k.a = measure(registry, o.original, o.scenario);
    k.b = measure(registry, b_elf, o.scenario);
    k.c = measure_c();
    k.initial = k.enabled.size();
    // The paper's de-selection: the most frequently called traced function goes first.
    while (budget && overhead(k.c, k.b) > *budget && !k.enabled.empty()) {
        std::string top;
        std::uint64_t most = 0;
        for (const auto& f : k.enabled) {
            auto n = k.c.calls.find(f);
            const std::uint64_t calls = n == k.c.calls.end() ? 0 : n->second;
            if (top.empty() || calls > most) top = f, most = calls;
        }
        k.enabled.erase(top);
        k.dropped.emplace_back(top, most);
        k.c = measure_c();
    }
    std::remove(b_elf.c_str());
    std::remove(c_elf.c_str());
    rmdir(dir);
    return k;
}

void print_comparison(const OverheadOptions& o, const Configurations& k) {
    const auto& [a, b, c, functions, enabled, initial, dropped] = k;
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
}

}  // namespace

int overhead_command(const AnalysisRegistry& registry, const OverheadOptions& o) {
    if (o.scenario.empty()) throw ConfigError("overhead: the runs need the board's scenario (-s)");
    const std::optional<double> budget = parse_budget(o.budget);
    const Configurations k = measure_configurations(registry, o, budget);
    print_comparison(o, k);
    if (budget) {
        std::printf("  budget %.1f%% over b: %s after disabling %zu of %zu functions, most frequently called first:\n", 100 * *budget,
                    overhead(k.c, k.b) <= *budget ? "met" : "NOT met", k.dropped.size(), k.initial);
        for (const auto& [f, n] : k.dropped) std::printf("    %-30s %10llu calls\n", f.c_str(), static_cast<unsigned long long>(n));
        std::string cmd = "emutrace patch " + o.elf + " --disable-all";
        for (const auto& f : k.enabled) cmd += " --enable " + f;
        std::printf("  the build: %s -o selective.elf\n", (cmd).c_str());
    }
    return budget && overhead(k.c, k.b) > *budget ? 1 : 0;
}

}  // namespace emutrace::app
