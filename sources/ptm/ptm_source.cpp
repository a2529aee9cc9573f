// The PTM/PFT capture's registry row: `emutrace decode ptm DIR` and crosscheck --snapshot.
#include "sources/ptm/ptm_capture.h"
#include "sources/registry.h"

namespace emutrace::sources {

SourceType ptm_source() {
    SourceType t;
    t.name = "ptm";
    t.summary = "a PTM/PFT capture (Cortex-A/R) decoded with OpenCSD";
    t.input = "an OpenCSD snapshot directory (snapshot.ini, trace.ini, the trace buffer)";
    t.options = {{"trace-id", "ID", "Decode only this trace ID (1-127; default: every PTM source)"}};
    t.open = [](const AnalysisSetup& setup, const std::string& input) -> std::unique_ptr<trace::RecordedSource> {
        return std::make_unique<decode::PtmCapture>(input, trace_id_option(setup, "trace-id", 0, 127));
    };
    return t;
}

}  // namespace emutrace::sources
