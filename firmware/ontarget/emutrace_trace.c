/* The firmware-side function tracer (emutrace_trace.h). Nothing here is instrumented: every
 * function carries no_instrument_function, so building this file with -finstrument-functions,
 * as the rest of the firmware, is safe. */
#include "emutrace_trace.h"

#define NI __attribute__((no_instrument_function))
#define ET_EVENT_BYTES 21u
#define ET_CAPACITY (ET_RING_BYTES / ET_EVENT_BYTES) /* the header comes on top */
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define ET_HANDLER_THREAD 0xFFFFFF00u
#define ET_READY 0x45544F4Eu /* "ETON": set last by et_init, checked by the hooks */

/* The ring: header, then the events. In .noinit: start-up code does not clear 512 KiB, and a
 * dump taken after a reset still holds the events before it until et_init runs again. */
__attribute__((used, aligned(8), section(".noinit"))) static struct {
    struct et_header header;
    uint8_t events[ET_CAPACITY * ET_EVENT_BYTES];
} et_ring;

struct et_shadow_entry {
    uint32_t caller; /* the return address the entry hook took away */
    uint32_t callee; /* the function */
    uint32_t sp;     /* where the return address was saved; 0: exit by the compiler's exit hook */
};

struct et_shadow_stack {
    uint32_t thread; /* whose; 0 free */
    uint32_t depth;
    struct et_shadow_entry entries[ET_SHADOW_DEPTH];
};

__attribute__((section(".noinit"))) static struct {
    uint32_t ready;
    int enabled;
    void *const volatile *current_thread;
    uint32_t last_thread; /* the thread of the last event: a change is a switch event */
    uint32_t cycle_hi, cycle_last;
#ifdef ET_EXITS_BY_RETURN_ADDRESS
    struct et_shadow_stack handlers; /* all handlers nest on the main stack: one shadow stack */
    struct et_shadow_stack threads[ET_THREADS];
#endif
} et;

static NI uint32_t ipsr(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, ipsr" : "=r"(v));
    return v & 0x1FFu;
}

static NI uint32_t thread_now(void)
{
    uint32_t n = ipsr();
    if (n)
        return ET_HANDLER_THREAD | n;
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    /* Thread mode on the main stack is start-up code before the scheduler: thread 0. */
    return (control & 2u) && et.current_thread ? (uint32_t)(uintptr_t)*et.current_thread : 0;
}

static NI void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Masks interrupts; returns what et_unlock restores. */
static NI uint32_t et_lock(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}

static NI void et_unlock(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

/* One event, interrupts masked: the slot's kind byte is written last, so a dump taken in the
 * middle shows a 0 there (a torn event the decoder skips). */
static NI void et_write(uint8_t kind, uint32_t thread, uint32_t a, uint32_t b)
{
    uint32_t primask = et_lock();
    struct et_header *h = &et_ring.header;
    uint8_t *slot = &et_ring.events[h->write_index * ET_EVENT_BYTES];
    slot[0] = 0;
    uint32_t c = (DWT_CTRL & 1u) ? DWT_CYCCNT : 0;
    if (c < et.cycle_last)
        et.cycle_hi++;
    et.cycle_last = c;
    put32(slot + 1, c);
    put32(slot + 5, et.cycle_hi);
    put32(slot + 9, thread);
    put32(slot + 13, a);
    put32(slot + 17, b);
    __asm__ volatile("dmb" ::: "memory");
    slot[0] = kind;
    if (++h->write_index == h->capacity) {
        h->write_index = 0;
        h->wraps++;
    }
    et_unlock(primask);
}

/* An event of the running context, preceded by a switch event when the thread changed. */
static NI void et_record(uint8_t kind, uint32_t a, uint32_t b)
{
    uint32_t thread = thread_now();
    if (thread < ET_HANDLER_THREAD && thread != et.last_thread) {
        et_write(ET_SWITCH, thread, thread, et.last_thread);
        et.last_thread = thread;
    }
    et_write(kind, thread, a, b);
}

void et_init(void *const volatile *current_thread)
{
    static const char magic[8] = {'E', 'M', 'U', 'T', 'R', 'I', 'N', 'G'};
    et.ready = 0;
    et.current_thread = current_thread;
    et.last_thread = 0;
    et.cycle_hi = et.cycle_last = 0;
    et.enabled = 1;
#ifdef ET_EXITS_BY_RETURN_ADDRESS
    et.handlers.depth = 0;
    for (unsigned i = 0; i < ET_THREADS; i++)
        et.threads[i].thread = et.threads[i].depth = 0;
    et_ring.header.flags = ET_FLAG_EXITS_BY_RETURN_ADDRESS;
#else
    et_ring.header.flags = 0;
#endif
    et_ring.header.version = 1;
    et_ring.header.header_bytes = sizeof et_ring.header;
    et_ring.header.event_bytes = ET_EVENT_BYTES;
    et_ring.header.capacity = ET_CAPACITY;
    et_ring.header.write_index = et_ring.header.wraps = et_ring.header.shadow_overflows = 0;
    for (unsigned i = 0; i < 8; i++)
        et_ring.header.magic[i] = magic[i];
    /* The cycle counter, as a debugger would enable it. */
    DEMCR |= 1u << 24;
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;
    et.ready = ET_READY;
}

void et_enable(int on)
{
    et.enabled = on;
}

void et_event(uint32_t id, uint32_t payload)
{
    if (et.ready == ET_READY && et.enabled)
        et_record(ET_CUSTOM, id, payload);
}

#ifndef ET_EXITS_BY_RETURN_ADDRESS

void __cyg_profile_func_enter(void *fn, void *call_site)
{
    if (et.ready == ET_READY && et.enabled)
        et_record(ET_ENTRY, (uint32_t)(uintptr_t)fn & ~1u, (uint32_t)(uintptr_t)call_site);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    if (et.ready == ET_READY && et.enabled)
        et_record(ET_EXIT, (uint32_t)(uintptr_t)fn & ~1u, (uint32_t)(uintptr_t)call_site);
}

#else /* exits by return-address manipulation */

void et_exit_trampoline(void);
uint32_t et_exit_impl(uint32_t sp);
void et_enter_impl(uint32_t fn, uint32_t call_site, uint32_t sp);

/* The shadow stack of the running context; null when every slot is taken by other threads. */
static NI struct et_shadow_stack *shadow(void)
{
    uint32_t t = thread_now();
    if (t >= ET_HANDLER_THREAD)
        return &et.handlers;
    struct et_shadow_stack *free = 0;
    for (unsigned i = 0; i < ET_THREADS; i++) {
        if (et.threads[i].thread == t + 1)
            return &et.threads[i];
        if (!et.threads[i].thread && !free)
            free = &et.threads[i];
    }
    if (free) {
        free->thread = t + 1; /* +1: thread 0 (start-up code) is a thread too */
        free->depth = 0;
    }
    return free;
}

static NI unsigned count_bits(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Where the function at fn saved lr, from its prologue: GCC opens it with the push of lr
 * (PUSH, or STMDB sp!) among its first instructions, maybe followed by SUB sp for locals, and
 * calls the entry hook after them. A register the function saves can hold the same value as
 * the return address (a small code address is a plausible loop count, and a recursive function
 * keeps its caller's), so the first match above the stack pointer is only the fallback. Null
 * when the prologue reads otherwise or the slot does not hold call_site. Cheap on purpose: it
 * runs on every call, interrupt handlers' included. */
static NI uint32_t *prologue_lr_slot(uint32_t fn, uint32_t sp, uint32_t call_site)
{
    const uint16_t *insn = (const uint16_t *)(uintptr_t)fn;
    uint32_t lr_above = 0; /* bytes from the stack pointer after the push up to the lr slot */
    unsigned i = 0;
    for (;; i++) {
        if (i == 3)
            return 0;
        uint16_t h = insn[i];
        if ((h & 0xFF00u) == 0xB500u) { /* PUSH {reglist, lr} */
            lr_above = 4u * count_bits(h & 0xFFu);
            break;
        }
        if (h == 0xE92Du && (insn[i + 1] & 0x4000u)) { /* STMDB sp!, {reglist, lr} */
            lr_above = 4u * count_bits(insn[i + 1]) - 4u;
            i++;
            break;
        }
    }
    /* Locals: a SUB sp right behind it (or behind one more instruction). */
    for (unsigned k = i + 1; k <= i + 2; k++)
        if ((insn[k] & 0xFF80u) == 0xB080u) {
            lr_above += 4u * (insn[k] & 0x7Fu);
            break;
        }
    uint32_t *slot = (uint32_t *)(uintptr_t)(sp + lr_above);
    return *slot == call_site ? slot : 0;
}

/* The entry hook's own frame hides the instrumented function's, so the assembly hands over the
 * stack pointer at the call: the function's saved return address is just above it. */
__attribute__((naked, no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *call_site)
{
    (void)fn;
    (void)call_site;
    __asm__ volatile("mov r2, sp\n"
                     "b et_enter_impl\n");
}

static NI void et_enter_locked(uint32_t fn, uint32_t call_site, uint32_t sp);

/* The shadow stacks are shared with every interrupt and thread (a free one is claimed, the
 * ring's switch events follow the last thread): an entry or exit runs with interrupts masked,
 * so that no context switch comes between reading a shadow stack and writing it back. */
NI void et_enter_impl(uint32_t fn, uint32_t call_site, uint32_t sp)
{
    if (et.ready != ET_READY || !et.enabled)
        return;
    uint32_t primask = et_lock();
    et_enter_locked(fn, call_site, sp);
    et_unlock(primask);
}

static NI void et_enter_locked(uint32_t fn, uint32_t call_site, uint32_t sp)
{
    fn &= ~1u;
    struct et_shadow_stack *s = shadow();
    if (!s) {
        et_ring.header.shadow_overflows++; /* no shadow stack left for this thread */
        et_record(ET_ENTRY, fn, call_site);
        return;
    }
    /* The prologue pushed lr (= call_site) with the callee-saved registers, and may have made
     * room for locals below them: its instructions say where. Without a prologue that reads
     * plainly, look a bounded way up for it. An inlined instance finds it already redirected by
     * its enclosing function: its exit comes through the exit hook. */
    uint32_t *slot = prologue_lr_slot(fn, sp, call_site);
    for (uint32_t *p = (uint32_t *)sp; !slot && p < (uint32_t *)sp + 64; p++)
        if (*p == call_site)
            slot = p;
    /* Live frames nest: each slot lies above the next one's. Entries at or below this call's
     * slot (or stack pointer) are frames a longjmp abandoned, whose memory this call reuses:
     * their exits go before this entry. */
    uint32_t floor = slot ? (uint32_t)(uintptr_t)slot : sp;
    while (s->depth && s->entries[s->depth - 1].sp && s->entries[s->depth - 1].sp <= floor) {
        s->depth--;
        et_record(ET_EXIT, s->entries[s->depth].callee, s->entries[s->depth].caller);
    }
    et_record(ET_ENTRY, fn, call_site);
    if (s->depth == ET_SHADOW_DEPTH) {
        et_ring.header.shadow_overflows++; /* this call's exit goes unrecorded */
        return;
    }
    if (slot)
        *slot = (uint32_t)(uintptr_t)et_exit_trampoline | 1u;
    struct et_shadow_entry *e = &s->entries[s->depth++];
    e->caller = call_site;
    e->callee = fn;
    e->sp = (uint32_t)(uintptr_t)slot;
}

static NI uint32_t et_exit_locked(uint32_t sp);

/* An instrumented function returned into the trampoline: record its exit, and those of the
 * frames a longjmp abandoned above it, and go on to its real caller. */
NI uint32_t et_exit_impl(uint32_t sp)
{
    uint32_t primask = et_lock();
    uint32_t caller = et_exit_locked(sp);
    et_unlock(primask);
    return caller;
}

static NI uint32_t et_exit_locked(uint32_t sp)
{
    struct et_shadow_stack *s = shadow();
    if (!s)
        return 0; /* cannot happen: the entry found a stack */
    /* The returning function's slot was in the frame just popped: of the slots below the stack
     * pointer now, the highest. Entries above it are frames a longjmp abandoned; entries without
     * a slot (inlined instances, exits by hook) below it belong to enclosing functions. */
    uint32_t found = s->depth;
    for (uint32_t i = 0; i < s->depth; i++)
        if (s->entries[i].sp && s->entries[i].sp < sp && (found == s->depth || s->entries[i].sp > s->entries[found].sp))
            found = i;
    if (found == s->depth)
        return 0; /* cannot happen: the trampoline is reached only through a redirected slot */
    for (uint32_t k = s->depth; k-- > found;)
        et_record(ET_EXIT, s->entries[k].callee, s->entries[k].caller);
    uint32_t caller = s->entries[found].caller;
    s->depth = found;
    return caller;
}

__attribute__((naked, no_instrument_function)) void et_exit_trampoline(void)
{
    __asm__ volatile("push {r0, r1, r2, r3}\n" /* the function's results */
                     "add r0, sp, #16\n"       /* the stack pointer it returned with */
                     "bl et_exit_impl\n"
                     "mov r12, r0\n"
                     "pop {r0, r1, r2, r3}\n"
                     "bx r12\n");
}

/* Entry-only compilers have no exit hook; with GCC's, only an inlined instance (whose return
 * address its enclosing function already took) uses it. */
void __cyg_profile_func_exit(void *fn, void *call_site)
{
    if (et.ready != ET_READY || !et.enabled)
        return;
    uint32_t primask = et_lock();
    struct et_shadow_stack *s = shadow();
    if (s && s->depth && s->entries[s->depth - 1].sp == 0 && s->entries[s->depth - 1].callee == ((uint32_t)(uintptr_t)fn & ~1u)) {
        s->depth--;
        et_record(ET_EXIT, (uint32_t)(uintptr_t)fn & ~1u, (uint32_t)(uintptr_t)call_site);
    }
    et_unlock(primask);
}

#endif
