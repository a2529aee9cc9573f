// ST's STM32F1 DMA controller (RM0008 §13): per channel CCR, CNDTR, CPAR, CMAR; ISR's GIF, TCIF,
// HTIF and TEIF per channel, cleared through IFCR; an interrupt line per channel (the SVD's
// DMAx_ChannelN, or one shared by several). A channel whose request line "<DMA>.<channel>" a
// peripheral model drives (DeviceHost::wired: ADC1's "DMA1.1", a USART's TX and RX lines as the
// board names them) moves an item each time it finds the line high, in either direction, from its
// own copies of the addresses and count (CPAR and CMAR keep what the firmware wrote; CNDTR counts
// down; circular mode starts over at the end), until the peripheral drops the line. Any other
// memory-to-memory or memory-to-peripheral channel moves its whole count through the bus when it
// is enabled, as the firmware's own loads and stores would reach memory and device registers.

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr unsigned kMostChannels = 7;

class Stm32Dma final : public RegisterPeripheral {
public:
    explicit Stm32Dma(decode::svd::Peripheral d) : RegisterPeripheral(std::move(d)), isr_(need("ISR")), ifcr_(need("IFCR")) {
        for (unsigned n = 1; n <= kMostChannels; ++n) {
            const std::string i = std::to_string(n);
            Channel c;
            c.ccr = regs().field("CCR" + i);
            if (!c.ccr) break;
            c.cndtr = need("CNDTR" + i);
            c.cpar = need("CPAR" + i);
            c.cmar = need("CMAR" + i);
            c.line = line_of(n);
            channels_[channels_used_++] = c;
        }
    }

private:
    static constexpr unsigned kNoLine = ~0u;
    // CCR's bits (RM0008 §13.4.3).
    enum : std::uint32_t {
        EN = 1u << 0,
        TCIE = 1u << 1,
        HTIE = 1u << 2,
        TEIE = 1u << 3,
        DIR = 1u << 4,
        CIRC = 1u << 5,
        PINC = 1u << 6,
        MINC = 1u << 7
    };
    static constexpr std::uint32_t kMem2Mem = 1u << 14;
    // ISR's bits per channel, at 4 * (channel - 1).
    enum : std::uint32_t { GIF = 1, TCIF = 2, HTIF = 4, TEIF = 8 };

    struct Channel {
        FieldRef ccr, cndtr, cpar, cmar;
        unsigned line = kNoLine;
        bool paced = false;                                   ///< a peripheral model drives its request line
        std::uint32_t peripheral = 0, memory = 0, total = 0;  ///< a paced transfer's next addresses and its count
    };

    // The interrupt line of channel n: the SVD's DMAx_Channeln, or a shared DMA2_Channel4_5.
    unsigned line_of(unsigned n) const {
        const auto& irqs = description()->interrupts;
        for (std::size_t i = 0; i < irqs.size(); ++i) {
            const auto at = irqs[i].name.find("Channel");
            if (at == std::string::npos) continue;
            std::string rest = irqs[i].name.substr(at + 7);
            for (std::size_t from = 0; from < rest.size();) {
                const std::size_t to = rest.find('_', from);
                if (rest.substr(from, to - from) == std::to_string(n)) return static_cast<unsigned>(i);
                from = to == std::string::npos ? rest.size() : to + 1;
            }
        }
        return kNoLine;
    }

    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        if (reg == ifcr_.reg) {  // a 1 clears the flag; CGIF clears the channel's four
            const std::uint32_t v = r.value(reg);
            std::uint32_t clear = 0;
            for (unsigned n = 0; n < channels_used_; ++n) {
                const std::uint32_t bits = v >> (4 * n) & 0xf;
                clear |= ((bits & GIF) ? 0xfu : bits) << (4 * n);
            }
            r.set(isr_.reg, r.value(isr_.reg) & ~clear);
            r.set(reg, 0);
        }
        for (unsigned n = 0; n < channels_used_; ++n)
            if (reg == channels_[n].ccr.reg && !(before & EN) && (r.value(reg) & EN)) run(n);
        update_irqs();
    }

    void run(unsigned n) {
        auto& r = regs();
        const Channel& c = channels_[n];
        const std::uint32_t ccr = r.value(c.ccr.reg);
        const bool to_peripheral = ccr & DIR, mem2mem = ccr & kMem2Mem;
        // A channel whose request line a peripheral model drives moves an item per request
        // (on_signal), from copies of its addresses and count.
        channels_[n].paced = !mem2mem && host().wired(description()->name + "." + std::to_string(n + 1));
        if (channels_[n].paced) {
            channels_[n].peripheral = r.value(c.cpar.reg), channels_[n].memory = r.value(c.cmar.reg);
            channels_[n].total = r.value(c.cndtr.reg) & 0xffff;
            serve(n);  // a request already high (a USART's TXE under DMAT) is taken now
            return;
        }
        if (!to_peripheral && !mem2mem) {
            host().warn_once(r.offset(c.ccr.reg), "a peripheral-to-memory transfer on channel " + std::to_string(n + 1) +
                                                      " waits for requests no peripheral model of the board makes; nothing moves");
            return;
        }
        const unsigned psize = 1u << ((ccr >> 8) & 3), msize = 1u << ((ccr >> 10) & 3);
        std::uint32_t count = r.value(c.cndtr.reg) & 0xffff;
        const std::uint32_t total = count;
        std::uint32_t pa = r.value(c.cpar.reg), ma = r.value(c.cmar.reg);
        // DIR: memory is the source; otherwise (memory to memory) the peripheral address is.
        const unsigned from_size = to_peripheral ? msize : psize, to_size = to_peripheral ? psize : msize;
        for (; count > 0; --count) {
            std::uint32_t value = 0;
            const std::uint32_t from = to_peripheral ? ma : pa, to = to_peripheral ? pa : ma;
            if (!host().bus_read(from, from_size, value) || !host().bus_write(to, to_size, value & width_mask(to_size))) {
                flag(n, TEIF);
                r.set(c.ccr.reg, r.value(c.ccr.reg) & ~EN);  // a transfer error disables the channel
                r.set(c.cndtr.reg, count);
                return;
            }
            if (ccr & PINC) pa += psize;
            if (ccr & MINC) ma += msize;
            if (count - 1 == total / 2) flag(n, HTIF);
        }
        flag(n, TCIF);
        // A circular channel reloads its count and goes round again on the next enable.
        r.set(c.cndtr.reg, (ccr & CIRC) ? total : 0);
    }

    // A peripheral's request line "<this DMA>.<channel>": high, the channel moves items while it
    // stays so (the peripheral drops it as an item is taken: a read of its data register).
    void on_signal(std::string_view line, bool level) override {
        const std::string& me = description()->name;
        if (line.size() <= me.size() + 1 || line.substr(0, me.size()) != me || line[me.size()] != '.') return;
        unsigned n = 0;
        for (char ch : line.substr(me.size() + 1)) {
            if (ch < '0' || ch > '9') return;
            n = n * 10 + static_cast<unsigned>(ch - '0');
        }
        if (n == 0 || n > channels_used_) return;
        requested_[n - 1] = level;
        if (level) serve(n - 1);
    }

    // Moves items while the channel's request is high. A request the transfer itself raises again
    // (the next byte ready at once) is taken by this loop, not by a nested one.
    // At most one pass over the channel's count at a time: a line that stays high whatever is
    // read (CPAR not at the requesting register) goes on at the next cycle, never in a loop here.
    void serve(unsigned n) {
        if (serving_[n]) return;
        serving_[n] = true;
        bool moving = true;
        for (std::uint32_t left = std::max<std::uint32_t>(1, channels_[n].total); left && requested_[n] && moving; --left) moving = request(n);
        serving_[n] = false;
        if (requested_[n] && moving) host().wake_at(host().now() + 1);
        update_irqs();
    }

    void tick(std::uint64_t) override {
        for (unsigned n = 0; n < channels_used_; ++n)
            if (requested_[n]) serve(n);
    }

    // One item of channel n; false when it cannot move one (off, done, a transfer error).
    bool request(unsigned n) {
        auto& r = regs();
        Channel& c = channels_[n];
        const std::uint32_t ccr = r.value(c.ccr.reg);
        std::uint32_t count = r.value(c.cndtr.reg) & 0xffff;
        if (!(ccr & EN) || (ccr & kMem2Mem) || count == 0 || !c.paced) return false;
        const unsigned psize = 1u << ((ccr >> 8) & 3), msize = 1u << ((ccr >> 10) & 3);
        const bool to_peripheral = ccr & DIR;
        const std::uint32_t from = to_peripheral ? c.memory : c.peripheral, to = to_peripheral ? c.peripheral : c.memory;
        const unsigned from_size = to_peripheral ? msize : psize, to_size = to_peripheral ? psize : msize;
        // The count and addresses move before the item does: the peripheral may ask again while
        // it takes this one (a USART whose shift register is free wants the next byte at once).
        if (ccr & PINC) c.peripheral += psize;
        if (ccr & MINC) c.memory += msize;
        --count;
        const bool wrap = count == 0 && (ccr & CIRC);
        r.set(c.cndtr.reg, wrap ? c.total : count);
        if (wrap) c.peripheral = r.value(c.cpar.reg), c.memory = r.value(c.cmar.reg);
        std::uint32_t value = 0;
        if (!host().bus_read(from, from_size, value) || !host().bus_write(to, to_size, value & width_mask(to_size))) {
            flag(n, TEIF);
            r.set(c.ccr.reg, r.value(c.ccr.reg) & ~EN);
            return false;
        }
        if (count == c.total / 2) flag(n, HTIF);
        if (count == 0) flag(n, TCIF);
        return true;
    }

    static std::uint32_t width_mask(unsigned bytes) { return bytes >= 4 ? 0xffffffffu : (1u << (8 * bytes)) - 1; }

    void flag(unsigned n, std::uint32_t bits) { regs().set(isr_.reg, regs().value(isr_.reg) | (bits | GIF) << (4 * n)); }

    void update_irqs() {
        const auto& r = regs();
        std::array<bool, kMostChannels> level{};
        for (unsigned n = 0; n < channels_used_; ++n) {
            const std::uint32_t ccr = r.value(channels_[n].ccr.reg), isr = r.value(isr_.reg) >> (4 * n);
            const bool on = ((ccr & TCIE) && (isr & TCIF)) || ((ccr & HTIE) && (isr & HTIF)) || ((ccr & TEIE) && (isr & TEIF));
            if (channels_[n].line < level.size()) level[channels_[n].line] = level[channels_[n].line] || on;
        }
        for (unsigned i = 0; i < description()->interrupts.size() && i < level.size(); ++i) host().set_irq_line(i, level[i]);
    }

    FieldRef isr_, ifcr_;
    std::array<Channel, kMostChannels> channels_{};
    std::array<bool, kMostChannels> requested_{}, serving_{};  ///< per channel: its request line is high; serve() runs
    unsigned channels_used_ = 0;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_dma(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({});
    return std::make_unique<Stm32Dma>(svd);
}

}  // namespace emutrace::emu
