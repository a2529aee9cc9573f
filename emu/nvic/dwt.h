#pragma once
// The Data Watchpoint and Trace unit at 0xE0001000 (ARMv7-M ARM C1.8): the profiling counters
// (CYCCNT and the 8-bit CPI, exception, sleep, LSU and fold counters, all read from the machine's
// cycle accounting, so firmware that times itself with DWT_CYCCNT sees the timing model), PC
// sampling, and four comparators on data addresses that trace the accesses they match (the PC,
// the address offset and the data value, as DWT_FUNCTIONn asks) and set MATCHED.

#include <cstdint>
#include <optional>
#include <vector>

#include "emu/peripherals/peripheral.h"

namespace emutrace::emu::nvic {

constexpr std::uint32_t kDwtBase = 0xE0001000;

class SystemControl;

/// The machine's cycle accounting; `cycles` = instructions' cycles + stall + sleep + exception.
/// Of the instructions' cycles, those beyond one per instruction are load/store cycles (`lsu`) or
/// CPI cycles (the rest: multi-cycle instructions, refills, fetch stalls), less `fold`ed ones.
struct CycleCounters {
    std::uint64_t cycles = 0;        ///< everything: what emulated time is made of
    std::uint64_t instructions = 0;  ///< instructions executed (IT-skipped ones included)
    std::uint64_t lsu = 0;           ///< load/store cycles beyond each one's first
    std::uint64_t fold = 0;          ///< instructions that took no cycle (an IT folded into its neighbour)
    std::uint64_t stall = 0;         ///< wait states of memory and devices
    std::uint64_t sleep = 0;         ///< asleep in WFI/WFE
    std::uint64_t exception = 0;     ///< exception entry, return and tail-chaining overhead
};

class Dwt final : public Peripheral {
public:
    /// `at_access`: while the machine is inside a device access, the counters as of that access's
    /// cycle (the machine counts a block's cycles when it starts).
    Dwt(const CycleCounters& counters, const std::optional<CycleCounters>& at_access, const SystemControl& scs)
        : counters_(counters), at_access_(at_access), scs_(scs) {}

    std::uint32_t size() const override { return 0x1000; }
    std::uint32_t read(std::uint32_t offset, unsigned width) override;
    void write(std::uint32_t offset, unsigned width, std::uint32_t value) override;
    void reset() override;
    /// PC sampling (CTRL.PCSAMPLENA): a sample every (POSTPRESET + 1) taps of CYCCNT.
    void on_time(std::uint64_t now) override;
    /// A load or store a comparator watches: MATCHED, and its data trace.
    void on_data_access(unsigned watch, const DataAccess& access) override;

    static constexpr unsigned kComparators = 4;  ///< CTRL.NUMCOMP on Cortex-M3/M4

private:
    /// A comparator: COMPn, MASKn, FUNCTIONn.
    struct Comparator {
        std::uint32_t comp = 0, mask = 0, function = 0;
        bool matched = false;
        /// The bytes it matches: COMP with MASK's low bits ignored.
        std::uint32_t size() const { return 1u << mask; }
        std::uint32_t base() const { return comp & ~(size() - 1); }
    };
    /// Asks the machine to watch what the comparators' functions match.
    void watch_comparators();
    std::uint32_t read_comparator(std::uint32_t offset);
    void write_comparator(std::uint32_t offset, std::uint32_t value);
    std::uint64_t sample_period() const;
    /// A counter that runs while enabled: its value is `base` plus what the source gained since.
    struct Counter {
        bool enabled = false;
        std::uint64_t since = 0;
        std::uint32_t base = 0;
        std::uint32_t value(std::uint64_t source) const { return enabled ? base + static_cast<std::uint32_t>(source - since) : base; }
        void set_enabled(bool on, std::uint64_t source) {
            if (on == enabled) return;
            base = value(source);
            since = source;
            enabled = on;
        }
        void write(std::uint32_t v, std::uint64_t source) {
            base = v;
            since = source;
        }
    };
    /// The counters now: as of the access in progress (DeviceHost::now() is its `cycles`).
    const CycleCounters& current() const { return at_access_ ? *at_access_ : counters_; }
    static std::uint64_t cpi_source(const CycleCounters& c);
    static std::uint64_t lsu_source(const CycleCounters& c) { return c.lsu + c.stall; }

    const CycleCounters& counters_;
    const std::optional<CycleCounters>& at_access_;
    const SystemControl& scs_;
    std::uint32_t ctrl_ = 0;
    std::uint64_t next_sample_ = 0;
    Counter cyccnt_, cpicnt_, exccnt_, sleepcnt_, lsucnt_, foldcnt_;
    Comparator comparators_[kComparators];
    std::vector<unsigned> watched_;  ///< per watch asked for: its comparator
};

}  // namespace emutrace::emu::nvic
