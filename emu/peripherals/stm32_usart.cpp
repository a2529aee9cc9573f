// ST's STM32F1 USART (RM0008 §27; also the F0/F2/F4 register set of SR, DR, BRR, CR1): TX to the
// console at the baud rate BRR and the APB clock give, RX from stimuli, TXE/TC/RXNE and their
// interrupt. The transmit data register feeds a shift register: a byte written while one shifts
// waits in DR (TXE clear) until the shift register is free, so firmware that writes as fast as TXE
// allows sends at the line's rate, as on the board. Under CR3.DMAT and DMAR the TX and RX DMA
// request lines the scenario names (`dma_tx`, `dma_rx`: "DMA1.4") are high while TXE, or RXNE,
// is: the DMA channel feeds DR at the line rate, and takes each received byte.

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

class Stm32Usart final : public RegisterPeripheral {
public:
    Stm32Usart(decode::svd::Peripheral d, std::string clock, std::FILE* out, std::string dma_tx, std::string dma_rx)
        : RegisterPeripheral(std::move(d)), clock_(std::move(clock)), out_(out), dma_tx_(std::move(dma_tx)), dma_rx_(std::move(dma_rx)),
          sr_(need("SR")), dr_(need("DR")), brr_(need("BRR")), cr1_(need("CR1")), txe_(need("SR.TXE")), tc_(need("SR.TC")), rxne_(need("SR.RXNE")),
          ore_(need("SR.ORE")), ue_(need("CR1.UE")), te_(need("CR1.TE")), re_(need("CR1.RE")), txeie_(need("CR1.TXEIE")), tcie_(need("CR1.TCIE")),
          rxneie_(need("CR1.RXNEIE")), m_(need("CR1.M")), dmat_(regs().field("CR3.DMAT")), dmar_(regs().field("CR3.DMAR")) {
        // RM0008: TC and RXNE are rc_w0 (a write of 0 clears, 1 leaves them), which ST's SVD calls read-write.
        for (FieldRef f : {tc_, rxne_}) regs().set_write_action(f, decode::svd::WriteAction::ZeroToClear);
        regs().set_write_action(need("SR.CTS"), decode::svd::WriteAction::ZeroToClear);
        regs().set_write_action(need("SR.LBD"), decode::svd::WriteAction::ZeroToClear);
    }

    bool can_receive() const override { return true; }
    bool drives(std::string_view line) const override { return dma_tx_.is(line) || dma_rx_.is(line); }

    void receive(std::string_view bytes) override {
        if (!on(re_)) {
            host().warn_once(regs().offset(dr_.reg), "bytes received while the receiver is off (CR1.UE and CR1.RE); dropped");
            return;
        }
        rx_.insert(rx_.end(), bytes.begin(), bytes.end());
        if (rx_.size() > kRxBuffer) {  // what the line delivers faster than the firmware reads is lost
            rx_.resize(kRxBuffer);
            regs().put(ore_, 1);
        }
        next_rx();
        update_irq();
    }

private:
    static constexpr std::size_t kRxBuffer = 1 << 16;

    bool on(FieldRef enable) const { return regs().get(ue_) && regs().get(enable); }

    void reset_model() override {
        rx_.clear();
        queued_.clear();
        shifting_until_ = 0;
        held_ = false;
        dma_tx_.reset(), dma_rx_.reset();
    }

    void refresh(int reg) override {
        if (reg == sr_.reg) tick(host().now());
    }

    void loaded(int reg) override {
        if (reg != dr_.reg) return;
        if (!rx_.empty()) rx_.pop_front();
        regs().put(rxne_, 0);
        regs().put(ore_, 0);  // RM0008: a read of SR then DR clears ORE
        next_rx();
        update_irq();
    }

    void stored(int reg, std::uint32_t before) override {
        if (reg == dr_.reg) {
            const std::uint32_t byte = regs().get(dr_) & 0xff;
            regs().set(dr_.reg, before);  // DR reads the receive side; the byte goes to the transmitter
            transmit(static_cast<char>(byte));
        }
        update_irq();
    }

    void transmit(char c) {
        if (!on(te_)) {
            host().warn_once(regs().offset(dr_.reg), "byte written to DR while the transmitter is off (CR1.UE and CR1.TE); dropped");
            return;
        }
        const std::uint64_t now = host().now();
        tick(now);
        if (shifting_until_ > now) {  // the shift register is busy: the byte waits in DR
            if (held_ && dmat_ && regs().get(dmat_) && dma_tx_.name().empty()) {
                queued_.push_back(c);  // a DMA channel would have waited for TXE: the bytes go out in turn
            } else {
                if (held_) host().warn_once(regs().offset(dr_.reg), "byte written to DR while TXE was clear; the earlier one is lost");
                held_ = true;
                held_byte_ = c;
            }
            regs().put(txe_, 0);
        } else {
            start(c, now);
        }
        regs().put(tc_, 0);
        host().wake_at(shifting_until_);
    }

    void start(char c, std::uint64_t now) {
        if (out_) std::fputc(c, out_);
        host().output(std::string_view(&c, 1));
        shifting_until_ = now + frame_cycles();
    }

    // The device's own time: the shift register finishing a frame.
    void tick(std::uint64_t now) override {
        while (shifting_until_ != 0 && now >= shifting_until_) {
            if (held_) {
                held_ = false;
                start(held_byte_, shifting_until_);
                if (!queued_.empty()) {
                    held_ = true;
                    held_byte_ = queued_.front();
                    queued_.pop_front();
                } else {
                    regs().put(txe_, 1);
                }
            } else {
                regs().put(tc_, 1);
                shifting_until_ = 0;
            }
        }
        if (shifting_until_) host().wake_at(shifting_until_);
        update_irq();
    }

    // Core cycles per frame: start + 8 or 9 data bits + stop, each BRR cycles of the APB clock.
    std::uint64_t frame_cycles() const {
        const std::uint64_t brr = std::max<std::uint32_t>(16, regs().get(brr_));
        const std::uint64_t pclk = host().clock(clock_), core = host().clock("core");
        const std::uint64_t bits = regs().get(m_) ? 11 : 10;
        if (!pclk || !core) return bits * brr;
        return std::max<std::uint64_t>(1, bits * brr * core / pclk);
    }

    void next_rx() {
        if (!rx_.empty() && !regs().get(rxne_)) {
            regs().put(dr_, static_cast<std::uint8_t>(rx_.front()));
            regs().put(rxne_, 1);
        }
    }

    void update_irq() {
        auto& r = regs();
        const bool level = (r.get(txeie_) && r.get(txe_)) || (r.get(tcie_) && r.get(tc_)) || (r.get(rxneie_) && (r.get(rxne_) || r.get(ore_)));
        host().set_irq(level && r.get(ue_));
        // The DMA requests follow the flags; a channel may write DR or read it before this returns.
        dma_rx_.drive(host(), r.get(ue_) && dmar_ && r.get(dmar_) && r.get(rxne_));
        dma_tx_.drive(host(), r.get(ue_) && dmat_ && r.get(dmat_) && r.get(txe_));
    }

    std::string clock_;
    std::FILE* out_;
    LevelWire dma_tx_, dma_rx_;  ///< the DMA request lines ("DMA1.4"), unnamed for none
    FieldRef sr_, dr_, brr_, cr1_, txe_, tc_, rxne_, ore_, ue_, te_, re_, txeie_, tcie_, rxneie_, m_, dmat_, dmar_;
    std::deque<char> rx_;
    std::deque<char> queued_;  ///< bytes a DMA channel wrote behind the one waiting in DR
    std::uint64_t shifting_until_ = 0;
    bool held_ = false;
    char held_byte_ = 0;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_usart(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"clock", "output", "dma_tx", "dma_rx"});
    // The APB clock the baud rate divides (RM0008 §7: USART1 on APB2, the board preset says so).
    std::string clock = params.has("clock") ? params["clock"].str() : "pclk1";
    std::string where = params.has("output") ? params["output"].choice({"stdout", "stderr", "none"}) : "stdout";
    std::FILE* out = where == "stdout" ? stdout : where == "stderr" ? stderr : nullptr;
    // The DMA channels its requests go to (RM0008 Table 78: USART1 TX DMA1 channel 4, RX 5): the board says.
    std::string dma_tx = params.has("dma_tx") ? params["dma_tx"].str() : "", dma_rx = params.has("dma_rx") ? params["dma_rx"].str() : "";
    return std::make_unique<Stm32Usart>(svd, clock, out, dma_tx, dma_rx);
}

}  // namespace emutrace::emu
