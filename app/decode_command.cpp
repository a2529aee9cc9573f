// emutrace decode: any registered recorded source (a probe's capture, a device's dump) read into
// the event model and fed to the analyses exactly as `run` feeds an emulated run. A source added
// to the registry is usable here with no command of its own.
#include <cstdio>

#include "app/commands.h"
#include "emutrace/session.h"

namespace emutrace::app {

int decode_command(const AnalysisRegistry& registry, const DecodeOptions& o) {
    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.source = o.source;
    request.source_input = o.input;
    request.options = o.options;
    Session session(registry, std::move(request));
    RunReport report = session.run();
    std::fputs(report.summary.c_str(), stdout);
    // A source that decoded nothing is bad input, said as every bad input is.
    for (const auto& f : report.failures) std::fprintf(stderr, report.status == 2 ? "emutrace: error: %s\n" : "emutrace: %s\n", f.c_str());
    return report.status;
}

}  // namespace emutrace::app
