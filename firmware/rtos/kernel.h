#ifndef EMUTRACE_RTOS_KERNEL_H
#define EMUTRACE_RTOS_KERNEL_H

/* A small preemptive kernel for the Cortex-M3 built on the mechanisms of
 * FreeRTOS's ARM_CM3 port (see kernel.c). Shared by the test firmware
 * (tests/firmware/rtos) and the demos under scenarios/.
 *
 * Tasks are created before kernel_start(); the first to run is the most
 * important one. Priorities: higher number = more important. An idle task
 * (always ready) must exist: the scheduler assumes one. */

#include <stddef.h>
#include <stdint.h>

/* configMAX_SYSCALL_INTERRUPT_PRIORITY: critical sections mask this
 * priority value and everything less urgent. Interrupts more urgent than
 * this (a lower value, e.g. the default 0) are never delayed by the
 * kernel, and must not call it. */
#define KERNEL_MAX_SYSCALL_PRIORITY 0x50u
#define KERNEL_TICK_HZ 1000u

#ifndef KERNEL_MAX_TASKS
#define KERNEL_MAX_TASKS 5
#endif
#ifndef KERNEL_STACK_WORDS
#define KERNEL_STACK_WORDS 256
#endif

struct tcb {
    uint32_t *sp; /* first: the assembly loads and stores [current_tcb] */
    uint32_t priority;
    uint32_t state;
    uint32_t wake_tick;
    char name[16]; /* offset 16: a scenario's rtos.name_offset */
    const void *wait_obj; /* what a blocked task waits for */
};

/* Read by the emulator's thread tracking: keep the name and the type. */
extern struct tcb *volatile current_tcb;

/* Before kernel_start. name is copied (15 chars at most). */
void task_create(void (*entry)(void *), const char *name, uint32_t priority, void *param);
/* Sets up SysTick (KERNEL_TICK_HZ from core_clock_hz), PendSV and SVC and
 * starts the most important task. Never returns. */
_Noreturn void kernel_start(uint32_t core_clock_hz);

/* An idle task's entry: sleeps in WFI until the next interrupt, forever. */
void kernel_idle(void *arg);

/* Ticks since kernel_start. */
uint32_t kernel_ticks(void);
/* ticks >= 1 */
void task_sleep(uint32_t ticks);
_Noreturn void block_forever(void);

/* BASEPRI critical sections; they nest. */
void enter_critical(void);
void exit_critical(void);

struct mutex {
    struct tcb *owner;
};
/* Returns 1 when it had to wait for another task to unlock. */
int mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

/* A queue of words over storage the caller provides. */
struct queue {
    uint32_t *items;
    unsigned capacity, head, count;
    char not_empty, not_full; /* their addresses are the wait objects */
};
void queue_init(struct queue *q, uint32_t *storage, unsigned capacity);
/* Both block while the queue is full (send) or empty (receive). */
void queue_send(struct queue *q, uint32_t v);
uint32_t queue_receive(struct queue *q);

#endif
