// The SWO capture's registry row: `emutrace decode swo FILE`.
#include "sources/itm/swo_capture.h"
#include "sources/registry.h"

namespace emutrace::sources {

SourceType swo_source() {
    SourceType t;
    t.name = "swo";
    t.summary = "an SWO capture: the ITM/DWT packet stream (stimulus ports, exception trace, PC samples) of a Cortex-M3/M4";
    t.input = "the bytes a probe received on SWO, TPIU formatter bypassed (orbuculum, pyOCD, J-Link SWO files; emutrace run --swo)";
    t.open = [](const AnalysisSetup&, const std::string& input) -> std::unique_ptr<trace::RecordedSource> {
        return std::make_unique<decode::itm::SwoCapture>(input);
    };
    return t;
}

}  // namespace emutrace::sources
