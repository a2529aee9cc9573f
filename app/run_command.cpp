#include <cstdio>

#include "app/commands.h"
#include "emutrace/session.h"

namespace emutrace::app {

int run_command(const AnalysisRegistry& registry, const RunOptions& o) {
    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.settings = o.settings;
    request.options = o.options;
    request.machine = o.machine;
    request.emutrace_statuses = o.emutrace_statuses;
    request.progress = o.verbosity == Verbosity::Quiet ? RunRequest::Progress::Never : o.progress;
    Session session(registry, std::move(request));
    RunReport report = session.run();
    if (o.verbosity != Verbosity::Quiet) std::fputs(report.summary.c_str(), stderr);
    if (!report.error.empty()) std::fprintf(stderr, "emutrace: error: %s\n", report.error.c_str());
    for (const auto& f : report.failures) std::fprintf(stderr, "emutrace: %s\n", f.c_str());
    // Last, once the analyses have spoken: the status the shell sees.
    if (o.verbosity != Verbosity::Quiet) std::fprintf(stderr, "exit status %d\n", report.status);
    return report.status;
}

}  // namespace emutrace::app
