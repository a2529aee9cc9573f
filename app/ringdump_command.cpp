// emutrace ringdump: a device's memory dump holding the on-target tracer's ring
// (firmware/ontarget), decoded into the event model and fed to the registered analyses exactly as
// `run` feeds an emulated run: the call trace, profile, constraints, Perfetto, JUnit. With
// --compare, the same ELF also runs in emulation and the two call traces are set side by side.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "analysis/crosscheck/call_comparison.h"
#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "emutrace/session.h"

namespace emutrace::app {

int ringdump_command(const AnalysisRegistry& registry, const RingdumpOptions& o) {
    if (o.compare && o.scenario.empty()) throw ConfigError("--compare: the emulated run needs the board's scenario (-s)");
    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.source = "ring";
    request.source_input = o.dump;
    request.options = o.options;
    if (!o.base.empty()) request.options["dump-base"] = o.base;
    std::string json_path;
    if (auto it = request.options.find("json"); o.compare && it != request.options.end()) {
        json_path = it->second;  // written below, with the comparison
        request.options.erase(it);
    }
    std::optional<decode::ElfImage> image;
    if (o.compare) image = decode::ElfImage::load(o.elf);
    std::optional<analysis::CallSide> ring_calls, emulated_calls;
    if (image) ring_calls.emplace(*image);

    Session session(registry, request);
    if (ring_calls) session.add_sink(*ring_calls);
    RunReport report = session.run();
    std::fputs(report.summary.c_str(), stdout);
    for (const auto& f : report.failures) std::fprintf(stderr, "emutrace: %s\n", f.c_str());
    int status = report.status;
    if (!o.compare) return status;

    RunRequest emulate;
    emulate.firmware = o.elf;
    emulate.scenario = o.scenario;
    emulate.machine.echo_output = false;
    emulate.scenario_outputs = false;
    const std::set<std::uint32_t> traced = analysis::traced_functions(*ring_calls);
    // A build that let GCC inline traced functions records their copies' entries on the board too:
    // the emulated side watches the entry hook for them.
    const std::uint32_t hook = image->symbols().address_of("__cyg_profile_func_enter").value_or(0) & ~1u;
    if (hook) emulate.watch_points.push_back(hook);
    Session emulation(registry, emulate);
    emulated_calls.emplace(*image, &traced, hook);
    emulation.add_sink(*emulated_calls);
    RunReport run = emulation.run();
    std::printf("\nemulated %s: %s, %s cycles\n", o.elf.c_str(), run.stopped.c_str(), config::grouped(run.totals.cycles).c_str());
    nlohmann::json j = nlohmann::json::parse(report.json);
    const analysis::CallComparison c = analysis::compare_calls(*ring_calls, *emulated_calls, *image, j.value("timestamps", false));
    std::fputs(c.text.c_str(), stdout);
    j["comparison"] = c.json;
    if (!json_path.empty()) config::write_text_file(json_path, config::json_text(j, 2) + "\n", "JSON result");
    return std::max(status, c.identical ? 0 : 1);
}

}  // namespace emutrace::app
