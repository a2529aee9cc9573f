// A marker device for user-defined events with a payload (the paper's "custom events"): the
// firmware writes the payload to PAYLOAD, then the event id to ID, which emits the event. Two
// stores and no code in the firmware beyond them, so the probe effect is two instructions.

#include <memory>

#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

enum Offset : std::uint32_t { PAYLOAD = 0x0, ID = 0x4, COUNT = 0x8 };

class Marker final : public Peripheral {
public:
    std::uint32_t size() const override { return 0x100; }

    std::uint32_t read(std::uint32_t offset, unsigned) override {
        switch (offset) {
            case PAYLOAD: return payload_;
            case COUNT: return count_;
            default: host().warn_once(offset, "read of an undefined marker register; reads 0"); return 0;
        }
    }

    void write(std::uint32_t offset, unsigned, std::uint32_t value) override {
        switch (offset) {
            case PAYLOAD: payload_ = value; return;
            case ID:
                ++count_;
                host().user_event(value, payload_);
                return;
            default: host().warn_once(offset, "write to an undefined marker register; ignored"); return;
        }
    }

    void reset() override { payload_ = count_ = 0; }

private:
    std::uint32_t payload_ = 0, count_ = 0;
};

}  // namespace

std::unique_ptr<Peripheral> make_marker(const config::Node& params) {
    params.allow_only({});
    return std::make_unique<Marker>();
}

}  // namespace emutrace::emu
