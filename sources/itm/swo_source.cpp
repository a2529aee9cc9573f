// The SWO capture's registry row: `emutrace decode swo FILE`.
#include <cstdlib>

#include "emutrace/config_error.h"
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
        unsigned id = 0;
        if (auto v = setup.flag("tpiu-id"); v && !v->empty()) {
            char* end = nullptr;
            unsigned long n = std::strtoul(v->c_str(), &end, 0);
            if (*end || n < 1 || n > 0x6F) throw ConfigError("--tpiu-id: expected a trace ID from 1 to 111, got '" + v->substr(0, 40) + "'");
            id = static_cast<unsigned>(n);
        }
        return std::make_unique<decode::itm::SwoCapture>(input, static_cast<std::uint8_t>(id));
    };
    return t;
}

}  // namespace emutrace::sources
