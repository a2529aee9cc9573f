// The ETMv3 capture's registry row: `emutrace decode etm DIR` (an OpenCSD snapshot whose trace
// unit is an ETM3, as a Cortex-M3/M4 has; `--etm-snapshot` writes one). The OpenCSD snapshot
// reader is the PTM's: it picks the decoder by the unit's type.
#include "sources/ptm/ptm_capture.h"
#include "sources/registry.h"

namespace emutrace::sources {

SourceType etm_source() {
    SourceType t;
    t.name = "etm";
    t.summary = "an ETMv3 capture (Cortex-M3/M4 instruction trace) decoded with OpenCSD";
    t.input = "an OpenCSD snapshot directory whose trace unit is an ETM3 (emutrace run --etm-snapshot writes one)";
    t.open = [](const AnalysisSetup&, const std::string& input) -> std::unique_ptr<trace::RecordedSource> {
        return std::make_unique<decode::PtmCapture>(input, 0);
    };
    return t;
}

}  // namespace emutrace::sources
