// Arm CMSDK APB UART, as on the MPS2 AN385 FPGA image (Cortex-M System Design Kit TRM,
// "UART"). Transmission is instantaneous: the TX buffer is never full.

#include <cstdio>
#include <deque>
#include <memory>
#include <string>

#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

enum Offset : std::uint32_t { DATA = 0x00, STATE = 0x04, CTRL = 0x08, INTSTATUS = 0x0C, BAUDDIV = 0x10 };
enum State : std::uint32_t { TX_FULL = 1u << 0, RX_FULL = 1u << 1, TX_OVERRUN = 1u << 2, RX_OVERRUN = 1u << 3 };
enum Ctrl : std::uint32_t { TX_EN = 1u << 0, RX_EN = 1u << 1, TX_INT_EN = 1u << 2, RX_INT_EN = 1u << 3 };
enum Int : std::uint32_t { TX_INT = 1u << 0, RX_INT = 1u << 1 };

class CmsdkUart final : public Peripheral {
public:
    explicit CmsdkUart(std::FILE* out) : out_(out) {}

    std::uint32_t size() const override { return 0x1000; }

    std::uint32_t read(std::uint32_t offset, unsigned) override {
        switch (offset) {
            case DATA: {
                if (rx_.empty()) return 0;
                std::uint32_t v = static_cast<std::uint8_t>(rx_.front());
                rx_.pop_front();
                if (!rx_.empty() && (ctrl_ & RX_INT_EN)) int_status_ |= RX_INT;  // the next byte arrives
                update_irq();
                return v;
            }
            case STATE: return state_ | (rx_.empty() ? 0u : static_cast<std::uint32_t>(RX_FULL));
            case CTRL: return ctrl_;
            case INTSTATUS: return int_status_;
            case BAUDDIV: return bauddiv_;
            default: host().warn_once(offset, "read of an unimplemented CMSDK UART register"); return 0;
        }
    }

    void write(std::uint32_t offset, unsigned, std::uint32_t value) override {
        switch (offset) {
            case DATA: transmit(static_cast<char>(value & 0xff)); break;
            case STATE: state_ &= ~(value & (TX_OVERRUN | RX_OVERRUN)); break;  // write 1 to clear
            case CTRL:
                ctrl_ = value & 0x7f;
                update_irq();
                break;
            case INTSTATUS:
                int_status_ &= ~value;
                update_irq();
                break;  // INTCLEAR
            case BAUDDIV: bauddiv_ = value & 0xfffff; break;
            default: host().warn_once(offset, "write to an unimplemented CMSDK UART register"); break;
        }
    }

    void reset() override {
        state_ = ctrl_ = int_status_ = bauddiv_ = 0;
        rx_.clear();
    }

    bool can_receive() const override { return true; }

    /// Bytes on the RX line queue behind the one-byte receive buffer; each read of DATA takes one.
    void receive(std::string_view bytes) override {
        if (!(ctrl_ & RX_EN)) {
            host().warn_once(DATA, "bytes received while RX is disabled (CTRL.RXEN=0); dropped");
            return;
        }
        rx_.insert(rx_.end(), bytes.begin(), bytes.end());
        if (ctrl_ & RX_INT_EN) int_status_ |= RX_INT;
        update_irq();
    }

private:
    void transmit(char c) {
        if (!(ctrl_ & TX_EN)) {
            host().warn_once(DATA, "byte written to DATA while TX is disabled (CTRL.TXEN=0); dropped");
            return;
        }
        if (out_) std::fputc(c, out_);
        host().output(std::string_view(&c, 1));
        if (ctrl_ & TX_INT_EN) int_status_ |= TX_INT;
        update_irq();
    }

    void update_irq() { host().set_irq((int_status_ & ((ctrl_ >> 2) & 3)) != 0); }

    std::FILE* out_;
    std::uint32_t state_ = 0, ctrl_ = 0, int_status_ = 0, bauddiv_ = 0;
    std::deque<char> rx_;
};

}  // namespace

std::unique_ptr<Peripheral> make_cmsdk_uart(const config::Node& params) {
    params.allow_only({"output"});
    std::string where = params["output"].defined() ? params["output"].choice({"stdout", "stderr", "none"}) : "stdout";
    std::FILE* out = where == "stdout" ? stdout : where == "stderr" ? stderr : nullptr;
    return std::make_unique<CmsdkUart>(out);
}

}  // namespace emutrace::emu
