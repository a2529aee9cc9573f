// The PTM/PFT capture's registry row: `emutrace decode ptm DIR` and crosscheck --snapshot.
#include "emutrace/config_error.h"
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
        unsigned id = 0;
        if (auto v = setup.flag("trace-id"); v && !v->empty()) {
            char* end = nullptr;
            unsigned long n = std::strtoul(v->c_str(), &end, 0);
            if (*end || n > 127) throw ConfigError("--trace-id: expected a trace ID from 0 to 127, got '" + v->substr(0, 40) + "'");
            id = static_cast<unsigned>(n);
        }
        return std::make_unique<decode::PtmCapture>(input, static_cast<std::uint8_t>(id));
    };
    return t;
}

}  // namespace emutrace::sources
