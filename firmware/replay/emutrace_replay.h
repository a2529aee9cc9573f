#ifndef EMUTRACE_REPLAY_H
#define EMUTRACE_REPLAY_H

/* The firmware-side recorder of emutrace's record/replay (docs/replay.md): wrappers around the
 * RTOS's synchronisation calls, the input reads and the external interrupt handlers call these
 * to write the events into a RAM ring in the log format emutrace replays
 * (analysis/replay/event_log.h). After the run, a memory dump of the board (raw, Intel HEX or
 * an ELF core) holds the ring; `emutrace replay --from-dump DUMP FW.elf -s S` finds it by its
 * header, links each event to what happened before it, and replays it in the emulator.
 *
 * The ring does not wrap: a replay starts at the first event, so when it is full further events
 * are counted as lost and the replay stops where the log ends. Each record is written with
 * interrupts masked, releases before the call (unlock, send, create, delay) and acquisitions
 * after it (lock, receive), so the ring's order is one the program's happens-before allows. */

#include <stdint.h>

#ifndef EMUTRACE_REPLAY_RECORDS
#define EMUTRACE_REPLAY_RECORDS 1024 /* 32 bytes each */
#endif

/* Operations: the log's (analysis/replay/event_log.h). */
enum er_op {
    ER_LOCK = 1,
    ER_UNLOCK = 2,
    ER_SEND = 3,
    ER_RECEIVE = 4,
    ER_CREATE = 5,
    ER_DELETE = 6,
    ER_DELAY = 7,
    ER_YIELD = 8,
    ER_INPUT = 9,
    ER_INTERRUPT = 10,
};

struct er_record {
    uint32_t seq, before, thread;
    uint8_t op, flags;
    uint16_t reserved;
    uint32_t object, value;
    uint32_t cycle_lo, cycle_hi;
};

/* The log header; the ring adds its capacity in the last word, which a log file leaves 0. */
struct er_header {
    char magic[8]; /* "EMUTRLOG" */
    uint16_t version, header_bytes, record_bytes, flags;
    uint32_t records, lost, timing, capacity;
};

struct er_ring {
    struct er_header header;
    struct er_record records[EMUTRACE_REPLAY_RECORDS];
};

/* current_thread: the RTOS's current-thread pointer (e.g. &current_tcb), whose value names the
 * thread of each event in a task (thread mode on the process stack), as the scenario's
 * rtos.current_thread does for the emulator; start-up code on the main stack is thread 0 and a
 * handler is 0xFFFFFF00 | its exception number. Call it once, before the first event. */
void er_init(void *const volatile *current_thread);

/* One event of the calling thread, or handler (then the thread is 0xFFFFFF00 | exception). */
void er_record(enum er_op op, uint32_t object, uint32_t value);

/* First thing in the handler of an interrupt the outside world raises. */
void er_interrupt(void);

/* Reads an input register and records what it returned. */
uint32_t er_input32(volatile const uint32_t *reg);

#endif
