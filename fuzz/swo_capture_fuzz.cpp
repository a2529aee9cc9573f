// libFuzzer target: arbitrary bytes as an SWO capture, bare and as TPIU formatter frames, must
// decode into events or be refused with ConfigError, never crash or grow without bound.
#include <cstddef>
#include <cstdint>

#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"
#include "sources/itm/swo_capture.h"

namespace {

class Discard final : public emutrace::trace::TraceSink {
public:
    std::uint32_t wants() const override { return ~0u; }
    void on_batch(const emutrace::trace::EventBatch&) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& file = emutrace::fuzz::as_file(data, size, ".swo");
    for (std::uint8_t id : {0, 1}) {
        Discard sink;
        emutrace::decode::itm::SwoCapture capture(file, id);
        capture.add_sink(sink);
        try {
            capture.deliver();
            std::string why;
            (void)capture.verdict(why);
            (void)capture.json();
            (void)capture.summary();
        } catch (const emutrace::ConfigError&) {}
    }
    return 0;
}
