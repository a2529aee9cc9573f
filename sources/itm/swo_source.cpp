// The SWO capture's registry row: `emutrace decode swo FILE`.
#include "sources/itm/swo_capture.h"
#include "sources/registry.h"

namespace emutrace::sources {

SourceType swo_source() {
    SourceType t;
    t.name = "swo";
    t.summary = "an SWO capture: the ITM/DWT packet stream (stimulus ports, exception trace, PC samples) of a Cortex-M3/M4";
    t.input = "the bytes a probe received on SWO, TPIU formatter bypassed (orbuculum, pyOCD, J-Link SWO files; emutrace run --swo)";
    t.options = {{"tpiu-id", "ID", "The capture is TPIU formatter frames: read trace ID ID's bytes (ITM_TCR.TraceBusID, 1-111)"}};
    t.open = [](const AnalysisSetup& setup, const std::string& input) -> std::unique_ptr<trace::RecordedSource> {
        return std::make_unique<decode::itm::SwoCapture>(input, trace_id_option(setup, "tpiu-id", 1, 0x6F));
    };
    return t;
}

}  // namespace emutrace::sources
