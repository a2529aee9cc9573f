#include "emu/nvic/exception_state.h"

#include <algorithm>

namespace emutrace::emu::nvic {

ExceptionState::ExceptionState(unsigned priority_bits, unsigned irqs)
    : priority_bits_(std::clamp(priority_bits, 2u, 8u)), irqs_(std::min<unsigned>(irqs, kMaxIrqs)) {
    reset();
}

void ExceptionState::reset() {
    enabled_.fill(false);
    pending_.fill(false);
    active_.fill(false);
    line_.fill(false);
    priority_.fill(0);
    fault_enabled_.fill(false);
    prigroup_ = 0;
}

bool ExceptionState::enabled(int n) const {
    if (!valid(n)) return false;
    if (n >= kFirstIrq) return enabled_[n];
    if (n >= kMemManage && n <= kUsageFault) return fault_enabled(n);
    return true;  // NMI, HardFault, SVCall, DebugMonitor, PendSV, SysTick cannot be disabled here
}

void ExceptionState::set_enabled(int n, bool on) {
    if (valid(n) && n >= kFirstIrq) enabled_[n] = on;
}

void ExceptionState::set_pending(int n, bool on) {
    if (valid(n)) pending_[n] = on;
}

void ExceptionState::set_priority(int n, std::uint8_t value) {
    if (!valid(n) || n <= kHardFault) return;  // fixed priorities
    priority_[n] = static_cast<std::uint8_t>(value & (0xFFu << (8 - priority_bits_)));
}

int ExceptionState::group_priority(int n) const {
    if (n == kReset) return -3;
    if (n == kNmi) return -2;
    if (n == kHardFault) return -1;
    unsigned subgroup_mask = (2u << prigroup_) - 1;  // PRIGROUP g: bits [g:0] are subpriority
    return static_cast<int>(priority(n) & ~subgroup_mask & 0xFFu);
}

int ExceptionState::execution_priority(bool primask, bool faultmask, std::uint8_t basepri) const {
    int prio = kThreadPriority;
    for (int n = kNmi; n < kFirstIrq + static_cast<int>(irqs_); ++n)
        if (active_[n]) prio = std::min(prio, group_priority(n));
    if (basepri) {
        unsigned subgroup_mask = (2u << prigroup_) - 1;
        std::uint8_t implemented = static_cast<std::uint8_t>(basepri & (0xFFu << (8 - priority_bits_)));
        if (implemented) prio = std::min(prio, static_cast<int>(implemented & ~subgroup_mask & 0xFFu));
    }
    if (primask) prio = std::min(prio, 0);
    if (faultmask) prio = std::min(prio, -1);
    return prio;
}

int ExceptionState::highest_pending() const {
    int best = 0;
    for (int n = kNmi; n < kFirstIrq + static_cast<int>(irqs_); ++n) {
        if (!pending_[n] || !enabled(n)) continue;
        // Lower group priority wins, then lower subpriority (whole byte), then lower number.
        if (!best || group_priority(n) < group_priority(best) ||
            (group_priority(n) == group_priority(best) && n > kHardFault && best > kHardFault && priority(n) < priority(best)))
            best = n;
    }
    return best;
}

int ExceptionState::preempting(int execution_priority) const {
    int n = highest_pending();
    return n && group_priority(n) < execution_priority ? n : 0;
}

int ExceptionState::active_count() const {
    return static_cast<int>(std::count(active_.begin(), active_.end(), true));
}

void ExceptionState::activate(int n) {
    if (!valid(n)) return;
    pending_[n] = false;
    active_[n] = true;
}

void ExceptionState::deactivate(int n) {
    if (!valid(n)) return;
    active_[n] = false;
    if (n >= kFirstIrq && line_[n]) pending_[n] = true;
}

void ExceptionState::set_line(int irq, bool level) {
    int n = kFirstIrq + irq;
    if (!valid(n) || irq < 0) return;
    if (level && !line_[n]) pending_[n] = true;
    line_[n] = level;
}

bool ExceptionState::fault_enabled(int n) const {
    return n >= kMemManage && n <= kUsageFault && fault_enabled_[static_cast<std::size_t>(n - kMemManage)];
}

void ExceptionState::set_fault_enabled(int n, bool on) {
    if (n >= kMemManage && n <= kUsageFault) fault_enabled_[static_cast<std::size_t>(n - kMemManage)] = on;
}

}  // namespace emutrace::emu::nvic
