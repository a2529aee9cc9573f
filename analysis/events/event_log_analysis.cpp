// The event log as an analysis: --events FILE (outputs.events).
#include <memory>

#include "analysis/events/event_log_writer.h"
#include "config/units.h"
#include "emutrace/analysis.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {
namespace {

class EventLogAnalysis final : public Analysis {
public:
    EventLogAnalysis(const std::string& path, std::uint64_t limit) : writer_(path, limit) {}
    std::vector<trace::TraceSink*> sinks() override { return {&writer_}; }

private:
    EventLogWriter writer_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    std::string path = setup.output("events");
    std::string limit = setup.output("events_limit");
    if (path.empty()) {
        if (!limit.empty()) throw ConfigError("--events-limit / outputs.events_limit: there is no event log (--events FILE) to limit");
        return nullptr;
    }
    std::uint64_t bytes = EventLogWriter::kDefaultLimit;
    if (!limit.empty()) {
        auto parsed = config::parse_size(limit);
        if (!parsed || !*parsed) throw ConfigError("--events-limit / outputs.events_limit: '" + limit.substr(0, 80) + "' is no size (100MiB, 4GiB)");
        bytes = *parsed;
    }
    return std::make_unique<EventLogAnalysis>(path, bytes);
}

}  // namespace

AnalysisType event_log_analysis() {
    return {"event_log",
            "the event stream (blocks, branches, MMIO, exceptions, output, markers) as JSON Lines",
            {},
            {{"events", "FILE", "Write the event stream (blocks, MMIO, output, ...) as JSON Lines"},
             {"events_limit", "SIZE", "Stop writing the event log after this many bytes, with a last 'truncated' line (default 1GiB)"}},
            {},
            trace::WantBlocks | trace::WantMmio | trace::WantOutput | trace::WantExceptions | trace::WantMarkers | trace::WantBranches |
                trace::WantSamples | trace::WantDataTrace,
            &create};
}

}  // namespace emutrace::analysis
