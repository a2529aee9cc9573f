// The event log as an analysis: --events FILE (outputs.events).
#include <memory>

#include "analysis/events/event_log_writer.h"
#include "emutrace/analysis.h"

namespace emutrace::analysis {
namespace {

class EventLogAnalysis final : public Analysis {
public:
    explicit EventLogAnalysis(const std::string& path) : writer_(path) {}
    std::vector<trace::TraceSink*> sinks() override { return {&writer_}; }

private:
    EventLogWriter writer_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    std::string path = setup.output("events");
    if (path.empty()) return nullptr;
    return std::make_unique<EventLogAnalysis>(path);
}

}  // namespace

AnalysisType event_log_analysis() {
    return {"event_log", "the event stream (blocks, branches, MMIO, exceptions, output, markers) as JSON Lines",
            {},          {{"events", "FILE", "Write the event stream (blocks, MMIO, output, ...) as JSON Lines"}},
            {},          trace::WantBlocks | trace::WantMmio | trace::WantOutput | trace::WantExceptions | trace::WantMarkers | trace::WantBranches,
            &create};
}

}  // namespace emutrace::analysis
