#ifndef EMUTRACE_REPLAY_KERNEL_H
#define EMUTRACE_REPLAY_KERNEL_H

/* Recording wrappers for the kernel in firmware/rtos, as a port for another RTOS would write
 * them: the same arguments, an event before a release and after an acquisition, with the
 * operands the emulator's recorder takes from the same calls (the scenario's replay: section).
 * Including it routes the application's calls below it through the wrappers, so a build with
 * the recorder needs no other change than this include, er_init() and, for inputs and external
 * interrupts, er_input32() and er_interrupt(). */

#include "emutrace_replay.h"
#include "kernel.h"

static inline int er_mutex_lock(struct mutex *m)
{
    int waited = mutex_lock(m);
    er_record(ER_LOCK, (uint32_t)(uintptr_t)m, 0);
    return waited;
}

static inline void er_mutex_unlock(struct mutex *m)
{
    er_record(ER_UNLOCK, (uint32_t)(uintptr_t)m, 0);
    mutex_unlock(m);
}

static inline void er_queue_send(struct queue *q, uint32_t v)
{
    er_record(ER_SEND, (uint32_t)(uintptr_t)q, v);
    queue_send(q, v);
}

static inline uint32_t er_queue_receive(struct queue *q)
{
    uint32_t v = queue_receive(q);
    er_record(ER_RECEIVE, (uint32_t)(uintptr_t)q, v);
    return v;
}

static inline void er_task_create(void (*entry)(void *), const char *name, uint32_t priority,
                                  void *param)
{
    (void)name; /* an address of this build only: not logged */
    er_record(ER_CREATE, (uint32_t)(uintptr_t)entry, 0);
    task_create(entry, name, priority, param);
}

static inline void er_task_sleep(uint32_t ticks)
{
    er_record(ER_DELAY, 0, ticks);
    task_sleep(ticks);
}

#define mutex_lock er_mutex_lock
#define mutex_unlock er_mutex_unlock
#define queue_send er_queue_send
#define queue_receive er_queue_receive
#define task_create er_task_create
#define task_sleep er_task_sleep

#endif
