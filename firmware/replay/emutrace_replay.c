/* The firmware-side recorder (emutrace_replay.h). */
#include "emutrace_replay.h"

#define ER_FLAG_UNLINKED 4u /* LogFlags::kUnlinked: emutrace fills in `before` */
#define ER_FLAG_EXTERNAL 1u /* EventFlags::kExternal */
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

/* Kept by the linker even when nothing references it by name: a dump tool finds it by magic.
 * In .noinit: the start-up code does not spend time zeroing it, and the application's own
 * variables keep the addresses they have in a build without the recorder. */
__attribute__((used, aligned(8), section(".noinit"))) static struct er_ring er_ring;
__attribute__((section(".noinit"))) static struct {
    void *const volatile *current_thread;
    uint32_t cycle_hi, cycle_last;
} er_state;

static uint32_t control(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, control" : "=r"(v));
    return v;
}

static uint32_t ipsr(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, ipsr" : "=r"(v));
    return v & 0x1FFu;
}

void er_init(void *const volatile *current_thread)
{
    static const char magic[8] = {'E', 'M', 'U', 'T', 'R', 'L', 'O', 'G'};
    er_state.current_thread = current_thread;
    er_state.cycle_hi = er_state.cycle_last = 0;
    er_ring.header.records = er_ring.header.lost = er_ring.header.timing = 0;
    er_ring.header.version = 2;
    er_ring.header.header_bytes = sizeof er_ring.header;
    er_ring.header.record_bytes = sizeof er_ring.records[0];
    er_ring.header.flags = ER_FLAG_UNLINKED;
    er_ring.header.capacity = EMUTRACE_REPLAY_RECORDS;
    /* The magic last: a dump taken before this point shows no half-made header (the ring is
     * not zeroed at reset: a stale magic from before it is overwritten with the same bytes). */
    for (unsigned i = 0; i < 8; i++)
        er_ring.header.magic[i] = magic[i];
}

static void er_write(enum er_op op, uint32_t object, uint32_t value, uint8_t flags)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    struct er_header *h = &er_ring.header;
    if (h->records >= EMUTRACE_REPLAY_RECORDS) {
        h->lost++;
    } else {
        uint32_t n = ipsr();
        struct er_record *r = &er_ring.records[h->records];
        r->seq = h->records + 1;
        r->before = 0;
        /* A handler is a thread of its own; thread mode on the main stack is start-up code
         * before the scheduler (thread 0), as the emulator sees it; tasks run on PSP. */
        if (n)
            r->thread = 0xFFFFFF00u | n;
        else if ((control() & 2u) && er_state.current_thread)
            r->thread = (uint32_t)(uintptr_t)*er_state.current_thread;
        else
            r->thread = 0;
        r->op = (uint8_t)op;
        r->flags = flags;
        r->reserved = 0;
        r->object = object;
        r->value = value;
        /* DWT_CYCCNT when the debugger or the start-up code enabled it; 64 bits by counting wraps.
         */
        uint32_t c = (DEMCR & (1u << 24)) && (DWT_CTRL & 1u) ? DWT_CYCCNT : 0;
        if (c < er_state.cycle_last)
            er_state.cycle_hi++;
        er_state.cycle_last = c;
        r->cycle_lo = c;
        r->cycle_hi = er_state.cycle_hi;
        __asm__ volatile("dmb" ::: "memory"); /* the record before the count that publishes it */
        h->records++;
    }
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

void er_record(enum er_op op, uint32_t object, uint32_t value)
{
    er_write(op, object, value, 0);
}

void er_interrupt(void)
{
    /* The interrupted pc is not known here; a replay from a board delivers interrupts in order. */
    er_write(ER_INTERRUPT, ipsr(), 0, ER_FLAG_EXTERNAL);
}

uint32_t er_input32(volatile const uint32_t *reg)
{
    uint32_t v = *reg;
    er_write(ER_INPUT, (uint32_t)(uintptr_t)reg, v, 0);
    return v;
}
