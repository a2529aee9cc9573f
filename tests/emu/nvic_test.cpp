#include <doctest/doctest.h>

#include "emu/nvic/exception_state.h"
#include "emu/nvic/systick.h"

using namespace emutrace::emu::nvic;

TEST_CASE("nvic: priorities keep only the implemented bits") {
    ExceptionState s(4, 64);
    s.set_priority(kFirstIrq + 3, 0x5F);
    CHECK(s.priority(kFirstIrq + 3) == 0x50);
    s.set_priority(kHardFault, 0x80);  // fixed at -1
    CHECK(s.group_priority(kHardFault) == -1);
    CHECK(s.group_priority(kNmi) == -2);
}

TEST_CASE("nvic: a pending IRQ preempts only if enabled and more urgent than the execution priority") {
    ExceptionState s(4, 64);
    int irq0 = kFirstIrq, irq1 = kFirstIrq + 1;
    s.set_priority(irq0, 0xC0);
    s.set_priority(irq1, 0x40);
    s.set_pending(irq0, true);
    CHECK(s.preempting(kThreadPriority) == 0);  // not enabled
    s.set_enabled(irq0, true);
    CHECK(s.preempting(kThreadPriority) == irq0);
    s.activate(irq0);
    CHECK(s.execution_priority(false, false, 0) == 0xC0);
    s.set_pending(irq1, true);
    s.set_enabled(irq1, true);
    CHECK(s.preempting(s.execution_priority(false, false, 0)) == irq1);  // 0x40 < 0xC0
    CHECK(s.preempting(s.execution_priority(true, false, 0)) == 0);      // PRIMASK
    CHECK(s.preempting(s.execution_priority(false, false, 0x40)) == 0);  // BASEPRI at the same level masks it
    CHECK(s.preempting(s.execution_priority(false, false, 0x80)) == irq1);
    CHECK(s.execution_priority(false, true, 0) == -1);  // FAULTMASK
}

TEST_CASE("nvic: among pending exceptions the lowest priority value wins, then the lowest number") {
    ExceptionState s(4, 64);
    for (int i = 0; i < 3; ++i) {
        s.set_enabled(kFirstIrq + i, true);
        s.set_pending(kFirstIrq + i, true);
    }
    s.set_priority(kFirstIrq + 0, 0xC0);
    s.set_priority(kFirstIrq + 1, 0x80);
    s.set_priority(kFirstIrq + 2, 0x80);
    CHECK(s.highest_pending() == kFirstIrq + 1);
    s.set_pending(kSysTick, true);
    s.set_priority(kSysTick, 0xF0);
    CHECK(s.highest_pending() == kFirstIrq + 1);
}

TEST_CASE("nvic: PRIGROUP splits group priority from subpriority") {
    ExceptionState s(4, 64);
    int a = kFirstIrq, b = kFirstIrq + 1;
    s.set_priority(a, 0x40);
    s.set_priority(b, 0x60);
    s.set_prigroup(5);  // bits [5:0] are subpriority: 0x40 and 0x60 share group 0x40
    CHECK(s.group_priority(a) == s.group_priority(b));
    s.set_enabled(b, true);
    s.set_pending(b, true);
    s.activate(a);
    CHECK(s.preempting(s.execution_priority(false, false, 0)) == 0);  // same group: no preemption
}

TEST_CASE("nvic: a level line still high pends its IRQ again when the handler returns") {
    ExceptionState s(4, 64);
    s.set_line(5, true);
    CHECK(s.pending(kFirstIrq + 5));
    s.activate(kFirstIrq + 5);
    CHECK_FALSE(s.pending(kFirstIrq + 5));
    s.deactivate(kFirstIrq + 5);
    CHECK(s.pending(kFirstIrq + 5));
    s.set_pending(kFirstIrq + 5, false);
    s.set_line(5, false);
    s.activate(kFirstIrq + 5);
    s.deactivate(kFirstIrq + 5);
    CHECK_FALSE(s.pending(kFirstIrq + 5));
}

TEST_CASE("systick: counts core cycles down from the reload value") {
    SysTick t(25'000'000);
    t.write(0x14, 999, 0);    // RVR: period 1000 cycles
    t.write(0x18, 0, 100);    // CVR write clears; reloads on the next clock
    t.write(0x10, 0x7, 100);  // ENABLE | TICKINT | CLKSOURCE
    REQUIRE(t.next_expiry());
    CHECK(*t.next_expiry() == 1100);
    CHECK(t.read(0x18, 600) == 500);
    CHECK_FALSE(t.update(1099));
    CHECK(t.update(1100));
    CHECK(*t.next_expiry() == 2100);
    CHECK(t.read(0x10, 1200) == (0x7u | (1u << 16)));  // COUNTFLAG, cleared by the read
    CHECK(t.read(0x10, 1201) == 0x7u);
    CHECK(t.update(5000));  // several periods missed: one pend, the schedule stays on the grid
    CHECK(*t.next_expiry() == 5100);
    CHECK((t.read(0x1C, 0) & 0xFFFFFF) == 249'999);  // TENMS at 25 MHz
}
