// TI's VIMS (Versatile Instruction Memory System) of the CC13x2/CC26x2, its two registers: CTL
// sets the cache mode (bits 1:0: 0 GPRAM, 1 cache, 3 off) and disables the line buffers of the
// I/D-code bus and of the System bus (bits 5 IDCODE_LB_DIS, 4 SYSBUS_LB_DIS); STAT reads the mode
// back with the same bits, MODE_CHANGING (bit 3) never set, since a change takes effect at once
// here. TI's driverlib (VIMSModeGet/VIMSModeSafeSet) polls STAT, also through its bit-band alias.
// The timing of the memory system follows the registers (DeviceHost::set_memory_mode): the
// regions' caches serve fetches in cache mode only, and the flash line buffers keep a line only
// while neither disable bit is set.

#include <memory>

#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

enum Offset : std::uint32_t { STAT = 0x0, CTL = 0x4 };
constexpr std::uint32_t kMode = 0x3, kModeCache = 0x1, kSysbusLbDis = 1u << 4, kIdcodeLbDis = 1u << 5;
// The bits CTL keeps: STATS_CLR/STATS_EN/DYN_CG_EN (31:29), the line-buffer disables, ARB_CFG
// and PREF_EN (3:2), the mode.
constexpr std::uint32_t kCtlBits = 0xE000'003Fu;

class TiVims final : public Peripheral {
public:
    explicit TiVims(std::uint32_t reset_ctl) : reset_ctl_(reset_ctl & kCtlBits), ctl_(reset_ctl_) {}

    std::uint32_t size() const override { return 0x400; }

    std::uint32_t read(std::uint32_t offset, unsigned) override {
        switch (offset) {
            case STAT: return ctl_ & (kSysbusLbDis | kIdcodeLbDis | kMode);
            case CTL: return ctl_;
            default: host().warn_once(offset, "read of a VIMS register not modelled; reads 0"); return 0;
        }
    }

    void write(std::uint32_t offset, unsigned, std::uint32_t value) override {
        if (offset != CTL) return host().warn_once(offset, "write to a VIMS register not modelled; ignored");
        ctl_ = value & kCtlBits & ~0x8000'0000u;  // STATS_CLR reads 0
        apply();
    }

    void reset() override {
        ctl_ = reset_ctl_;
        apply();
    }

private:
    void apply() {
        models::MemoryMode mode;
        mode.cache_enabled = (ctl_ & kMode) == kModeCache;
        mode.line_buffers = !(ctl_ & (kSysbusLbDis | kIdcodeLbDis));
        host().set_memory_mode(mode);
    }
    std::uint32_t reset_ctl_, ctl_;
};

}  // namespace

std::unique_ptr<Peripheral> make_ti_vims(const config::Node& params) {
    params.allow_only({"ctl"});
    // As TI's boot code leaves it: cache mode, prefetch on, line buffers on.
    std::uint32_t ctl = params.has("ctl") ? params["ctl"].u32() : 0x5u;
    return std::make_unique<TiVims>(ctl);
}

}  // namespace emutrace::emu
