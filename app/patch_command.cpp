// emutrace patch: selective on-target instrumentation without recompiling. The hook calls of a
// -finstrument-functions build become NOPs (--disable-all, --disable GLOB) or calls again
// (--enable GLOB), in that order; the output ELF is the input with those instructions changed.
#include <chrono>
#include <cstdio>
#include <map>

#include "app/commands.h"
#include "emutrace/config_error.h"
#include "sources/ring/hook_patcher.h"

namespace emutrace::app {

int patch_command(const PatchOptions& o) {
    if (!o.disable_all && o.enable.empty() && o.disable.empty() && !o.list)
        throw ConfigError("patch: nothing to do: give --disable-all, --enable GLOB, --disable GLOB or --list");
    if (o.output.empty() && !o.list) throw ConfigError("patch: give the output ELF with -o");
    const auto started = std::chrono::steady_clock::now();
    decode::HookPatcher patcher(o.elf);
    std::map<std::string, std::pair<int, int>> before;  // function -> (enabled, sites)
    for (const auto& s : patcher.sites()) {
        auto& [on, all] = before[s.function];
        on += s.enabled;
        ++all;
    }
    std::size_t changed = 0;
    if (o.disable_all) changed += patcher.set("*", false);
    for (const auto& g : o.enable) changed += patcher.set(g, true);
    for (const auto& g : o.disable) changed += patcher.set(g, false);
    std::map<std::string, std::pair<int, int>> after;
    for (const auto& s : patcher.sites()) {
        auto& [on, all] = after[s.function];
        on += s.enabled;
        ++all;
    }
    std::size_t functions_on = 0;
    for (const auto& [f, c] : after) functions_on += c.first > 0;
    if (o.list) {
        std::printf("%-40s %8s\n", "function", "hooks on");
        for (const auto& [f, c] : after) std::printf("%-40s %4d/%-3d\n", f.c_str(), c.first, c.second);
    } else {
        for (const auto& [f, c] : after) {
            const int was = before[f].first;
            if (c.first != was) std::printf("  %-40s %d -> %d of %d hook calls on\n", f.c_str(), was, c.first, c.second);
        }
    }
    if (!o.output.empty()) patcher.write(o.output);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("patch: %zu of %zu hook calls changed; %zu of %zu instrumented functions traced%s%s (%.3f s)\n", changed, patcher.sites().size(),
                functions_on, after.size(), o.output.empty() ? "" : "; wrote ", o.output.c_str(), seconds);
    return 0;
}

}  // namespace emutrace::app
