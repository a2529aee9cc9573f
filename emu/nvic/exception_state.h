#pragma once
// The NVIC's and SCB's view of exceptions as the ARMv7-M ARM defines it (B1.5): enable, pending and
// active bits, priorities with the implemented priority bits and PRIGROUP, the execution priority,
// and which pending exception, if any, preempts. Pure state: no Unicorn, no registers.

#include <array>
#include <cstdint>

namespace emutrace::emu::nvic {

enum Exception : int {
    kReset = 1,
    kNmi = 2,
    kHardFault = 3,
    kMemManage = 4,
    kBusFault = 5,
    kUsageFault = 6,
    kSvcall = 11,
    kDebugMonitor = 12,
    kPendSv = 14,
    kSysTick = 15,
    kFirstIrq = 16,
};

constexpr int kMaxIrqs = 240;
constexpr int kMaxExceptions = kFirstIrq + kMaxIrqs;
/// Execution priority of thread mode with nothing active and no mask: below every exception.
constexpr int kThreadPriority = 256;

class ExceptionState {
public:
    /// `priority_bits` implemented bits (2-8, from the top of each priority byte), `irqs` external lines.
    ExceptionState(unsigned priority_bits, unsigned irqs);
    void reset();

    unsigned irqs() const { return irqs_; }
    bool valid(int n) const { return n >= kNmi && n < kFirstIrq + static_cast<int>(irqs_); }

    bool enabled(int n) const;
    void set_enabled(int n, bool on);
    bool pending(int n) const { return valid(n) && pending_[n]; }
    void set_pending(int n, bool on);
    bool active(int n) const { return valid(n) && active_[n]; }

    /// The priority byte as software wrote it, cut to the implemented bits.
    std::uint8_t priority(int n) const { return valid(n) ? priority_[n] : 0; }
    void set_priority(int n, std::uint8_t value);
    unsigned prigroup() const { return prigroup_; }
    void set_prigroup(unsigned g) { prigroup_ = g & 7; }

    /// Group priority of exception n: -3/-2/-1 for Reset/NMI/HardFault, else the priority byte
    /// without its subpriority bits.
    int group_priority(int n) const;
    /// The mask bits are the CPU's PRIMASK, FAULTMASK and BASEPRI.
    int execution_priority(bool primask, bool faultmask, std::uint8_t basepri) const;
    /// The pending, enabled exception that would preempt at `execution_priority`, or 0.
    int preempting(int execution_priority) const;
    /// The highest-priority pending and enabled exception regardless of masks (ICSR.VECTPENDING), or 0.
    int highest_pending() const;
    /// Number of active exceptions (nesting depth).
    int active_count() const;

    void activate(int n);
    /// Clears the active bit; a level-triggered line still high pends its IRQ again.
    void deactivate(int n);
    /// A device drives the interrupt line of external IRQ `irq`; a rising level pends it.
    void set_line(int irq, bool level);

    /// Configurable fault handlers enabled in SHCSR (MemManage, BusFault, UsageFault).
    bool fault_enabled(int n) const;
    void set_fault_enabled(int n, bool on);

private:
    unsigned priority_bits_;
    unsigned irqs_;
    unsigned prigroup_ = 0;
    std::array<bool, kMaxExceptions> enabled_{};
    std::array<bool, kMaxExceptions> pending_{};
    std::array<bool, kMaxExceptions> active_{};
    std::array<bool, kMaxExceptions> line_{};
    std::array<std::uint8_t, kMaxExceptions> priority_{};
    std::array<bool, 3> fault_enabled_{};  ///< MemManage, BusFault, UsageFault
};

}  // namespace emutrace::emu::nvic
