// emutrace ringdump: a device's memory dump holding the on-target tracer's ring
// (firmware/ontarget), decoded into the event model and fed to the registered analyses exactly as
// `run` feeds an emulated run: the call trace, profile, constraints, Perfetto, JUnit.
#include <cstdio>

#include "app/commands.h"
#include "config/config_error.h"
#include "config/units.h"
#include "emutrace/session.h"

namespace emutrace::app {

int ringdump_command(const AnalysisRegistry& registry, const RingdumpOptions& o) {
    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.ring_dump = o.dump;
    request.options = o.options;
    if (!o.base.empty()) {
        auto v = config::parse_integer(o.base);
        if (!v || *v > 0xFFFFFFFFu) throw ConfigError("--base: expected an address such as 0x20000000, got '" + o.base + "'");
        request.ring_base = static_cast<std::uint32_t>(*v);
    }
    Session session(registry, request);
    RunReport report = session.run();
    std::fputs(report.summary.c_str(), stdout);
    for (const auto& f : report.failures) std::fprintf(stderr, "emutrace: %s\n", f.c_str());
    return report.status;
}

}  // namespace emutrace::app
