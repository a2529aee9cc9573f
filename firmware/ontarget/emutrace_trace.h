#ifndef EMUTRACE_TRACE_H
#define EMUTRACE_TRACE_H

/* The firmware-side function tracer of emutrace (docs/ontarget.md), after Trümper, Voigt and
 * Döllner's entry/exit tracing for embedded systems: build the firmware with
 * -finstrument-functions and this file, call et_init() once, and every instrumented function's
 * entry and exit, each custom event and each thread switch becomes a 21-byte event in a RAM
 * ring. After the run, a memory dump of the device (raw, Intel HEX, ELF core) holds the ring;
 * `emutrace ringdump DUMP --elf FW.elf` finds it by its header and feeds the call tracer,
 * profile, constraints, Perfetto and JUnit outputs as if the run had been traced by emutrace.
 *
 * Exits are recorded by the compiler's exit hook when it has one (GCC's
 * __cyg_profile_func_exit). Built with ET_EXITS_BY_RETURN_ADDRESS, the exit hook is ignored and
 * the entry hook redirects the instrumented function's saved return address to an exit
 * trampoline instead, with a per-thread shadow stack of 12-byte entries (caller, callee, sp),
 * for compilers that insert entry hooks only. */

#include <stdint.h>

#ifndef ET_RING_BYTES
#define ET_RING_BYTES (512u * 1024u) /* events: 24,966 of 21 bytes (the 32-byte header comes on top) */
#endif
#ifndef ET_SHADOW_DEPTH
#define ET_SHADOW_DEPTH 32 /* shadow stack entries per thread (return-address mode) */
#endif
#ifndef ET_THREADS
#define ET_THREADS 8 /* threads with a shadow stack of their own (return-address mode) */
#endif

/* Event kinds (the first byte of each 21-byte event; 0 while the slot is being written). */
enum et_kind {
    ET_ENTRY = 1,  /* a: function, b: call site (the return address) */
    ET_EXIT = 2,   /* a: function, b: call site */
    ET_CUSTOM = 3, /* a: id, b: payload */
    ET_SWITCH = 4, /* a: the thread now running, b: the one before */
};

/* The ring's header, found by its magic in a dump. Events follow it: slot i at
 * header + sizeof header + 21 * i. */
struct et_header {
    char magic[8]; /* "EMUTRING" */
    uint16_t version, header_bytes, event_bytes, flags;
    uint32_t capacity; /* events */
    uint32_t write_index; /* the next slot written */
    uint32_t wraps; /* times the writer went past the last slot */
    uint32_t shadow_overflows; /* entries whose exit was not recorded: a full shadow stack */
};

#define ET_FLAG_EXITS_BY_RETURN_ADDRESS 1u

/* current_thread: the RTOS's current-thread pointer (e.g. &current_tcb); null for none. Each
 * event carries its value (0 on the main stack before the scheduler starts, 0xFFFFFF00 | n in
 * the handler of exception n). */
void et_init(void *const volatile *current_thread) __attribute__((no_instrument_function));

/* A custom event with payload, e.g. the start of a time-critical action. */
void et_event(uint32_t id, uint32_t payload) __attribute__((no_instrument_function));

/* Stop and start recording (a trigger window); recording starts enabled after et_init(). */
void et_enable(int on) __attribute__((no_instrument_function));

void __cyg_profile_func_enter(void *fn, void *call_site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *call_site) __attribute__((no_instrument_function));

#endif
