/* A small preemptive kernel built on the same mechanisms as FreeRTOS's
 * ARM_CM3 port, plus an application whose transcript shows preemption,
 * blocking and time slicing. Written for the Cortex-M3 as silicon runs it:
 *
 * - tasks run in thread mode on PSP; handlers and the kernel's assembly
 *   run on MSP;
 * - SVC starts the first task, PendSV (lowest priority) switches context,
 *   SysTick (lowest priority, 1 kHz) counts ticks and time-slices;
 * - kernel data is guarded by BASEPRI critical sections, which mask PendSV
 *   and SysTick but nothing more urgent than MAX_SYSCALL_PRIORITY.
 *
 * One file on purpose: the build only tracks the runtime's headers.
 *
 * Transcript (every event happens well inside one 1 ms tick, so the tick
 * numbers are deterministic):
 *   rtos: start
 *   [t=0] producer sending 1
 *   [t=0] producer sent 1
 *   [t=0] consumer got 1 (waited for lock)
 *   ... the same for 2 (t=2) and 3 (t=4) ...
 *   [t=4] consumer napping 10 ticks
 *   [t=6] producer sending 4 / [t=6] producer sent 4
 *   [t=8] producer sending 5 / [t=8] producer sent 5
 *   [t=10] producer sending 6            (queue full: blocks until t=14)
 *   [t=14] producer sent 6
 *   [t=14] consumer got 4 (waited for lock)
 *   [t=14] consumer got 5
 *   [t=14] consumer got 6
 *   [t=14] spinners both ran: yes
 *   rtos done
 */
#include <stddef.h>
#include <stdint.h>

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

/* ==== port layer (what FreeRTOS keeps in portable/GCC/ARM_CM3) ==== */

/* configMAX_SYSCALL_INTERRUPT_PRIORITY: critical sections mask this
 * priority value and everything less urgent. */
#define MAX_SYSCALL_PRIORITY 0x50u
#define KERNEL_PRIORITY 0xF0u /* PendSV and SysTick: least urgent */
#define CORE_CLOCK_HZ 25000000u
#define TICK_HZ 1000u
#define INITIAL_XPSR 0x01000000u /* EPSR.T: tasks run Thumb code */
/* An exception return to a PC with bit 0 set is UNPREDICTABLE. */
#define START_ADDRESS_MASK 0xFFFFFFFEu

enum task_state { TASK_READY, TASK_SLEEPING, TASK_BLOCKED };

struct tcb {
    uint32_t *sp; /* first: the assembly below loads and stores [current_tcb] */
    uint32_t priority; /* higher number = more important (as in FreeRTOS) */
    uint32_t state;
    uint32_t wake_tick;
    char name[16]; /* the scenario's rtos.name_offset / name_length */
    const void *wait_obj; /* what a TASK_BLOCKED task waits for */
};
_Static_assert(offsetof(struct tcb, sp) == 0, "PendSV/SVC assembly needs sp first");
_Static_assert(offsetof(struct tcb, name) == 16, "rtos.yaml name_offset");

/* Read by the emulator's thread tracking: keep the name and the type. */
struct tcb *volatile current_tcb;

static uint32_t critical_nesting;

static void enter_critical(void)
{
    /* As vPortRaiseBASEPRI: the barriers make the new mask take effect
     * before the next kernel-data access. */
    __set_BASEPRI(MAX_SYSCALL_PRIORITY);
    __ISB();
    __DSB();
    critical_nesting++;
}

static void exit_critical(void)
{
    if (--critical_nesting == 0) {
        __set_BASEPRI(0);
        /* A PendSV requested inside the section is taken here, before the
         * caller continues (the blocking loops below rely on it). */
        __ISB();
    }
}

/* portYIELD: the switch happens in PendSV, at once if unmasked, else when
 * the enclosing critical section ends. */
static void yield(void)
{
    SCB_ICSR = SCB_ICSR_PENDSVSET;
    __DSB();
    __ISB();
}

static void say(const char *s)
{
    char line[80];
    fmt_str(fmt_str(line, s), "\n");
    sh_write0(line);
}

/* A task function must never return; like prvTaskExitError, trap it. */
static void task_exit_trap(void)
{
    say("rtos: FAIL: a task returned");
    sh_exit(3);
}

/* As pxPortInitialiseStack: the frame PendSV/SVC would restore, so a new
 * task starts through an ordinary exception return. */
static uint32_t *init_stack(uint32_t *top, void (*entry)(void *), void *param)
{
    uint32_t *sp = top;
    *--sp = INITIAL_XPSR;
    *--sp = (uint32_t)(uintptr_t)entry & START_ADDRESS_MASK; /* PC */
    *--sp = (uint32_t)(uintptr_t)task_exit_trap;             /* LR */
    sp -= 4;                                                 /* r12, r3, r2, r1 */
    *--sp = (uint32_t)(uintptr_t)param;                      /* r0 */
    sp -= 8;                                                 /* r11..r4 */
    return sp;
}

void switch_context(void);

/* As xPortPendSVHandler. Runs only when returning to thread mode (it is
 * the least urgent exception), so the outgoing context is on PSP. */
__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile("mrs r0, psp\n"
                     "isb\n"
                     "ldr r3, =current_tcb\n"
                     "ldr r2, [r3]\n"
                     "stmdb r0!, {r4-r11}\n" /* the hardware stacked the rest */
                     "str r0, [r2]\n"        /* current_tcb->sp */
                     "stmdb sp!, {r3, lr}\n" /* lr = EXC_RETURN */
                     "mov r0, %0\n"
                     "msr basepri, r0\n"
                     "dsb\n"
                     "isb\n"
                     "bl switch_context\n"
                     "mov r0, #0\n"
                     "msr basepri, r0\n"
                     "ldmia sp!, {r3, lr}\n"
                     "ldr r1, [r3]\n" /* the new current_tcb */
                     "ldr r0, [r1]\n"
                     "ldmia r0!, {r4-r11}\n"
                     "msr psp, r0\n"
                     "isb\n"
                     "bx lr\n"
                     ".ltorg\n" ::"i"(MAX_SYSCALL_PRIORITY));
}

/* As vPortSVCHandler: only "svc 0" from start_first_task comes here. It
 * restores the first task's context and returns into it on PSP. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("ldr r3, =current_tcb\n"
                     "ldr r1, [r3]\n"
                     "ldr r0, [r1]\n"
                     "ldmia r0!, {r4-r11}\n"
                     "msr psp, r0\n"
                     "isb\n"
                     "mov r0, #0\n"
                     "msr basepri, r0\n"
                     "orr lr, lr, #0xd\n" /* EXC_RETURN: thread mode, PSP */
                     "bx lr\n"
                     ".ltorg\n");
}

/* As prvStartFirstTask: main's stack is never needed again, so MSP goes
 * back to the top given by the vector table (found through VTOR). */
__attribute__((naked, noreturn)) static void start_first_task(void)
{
    __asm__ volatile("ldr r0, =0xE000ED08\n"
                     "ldr r0, [r0]\n"
                     "ldr r0, [r0]\n"
                     "msr msp, r0\n"
                     "cpsie i\n"
                     "cpsie f\n"
                     "dsb\n"
                     "isb\n"
                     "svc 0\n"
                     "nop\n"
                     ".ltorg\n");
}

/* ==== kernel ==== */

#define MAX_TASKS 5
#define STACK_WORDS 256

static struct tcb tasks[MAX_TASKS];
/* 8-byte aligned tops keep the AAPCS stack alignment inside tasks. */
static uint32_t stacks[MAX_TASKS][STACK_WORDS] __attribute__((aligned(8)));
static unsigned task_count;
static volatile uint32_t tick_count;

static void task_create(void (*entry)(void *), const char *name, uint32_t priority, void *param)
{
    struct tcb *t = &tasks[task_count];
    t->sp = init_stack(stacks[task_count] + STACK_WORDS, entry, param);
    t->priority = priority;
    t->state = TASK_READY;
    for (unsigned i = 0; i < sizeof t->name - 1 && name[i]; i++)
        t->name[i] = name[i];
    task_count++;
    /* The first task to run is the most important one created. */
    if (!current_tcb || priority >= current_tcb->priority)
        current_tcb = t;
}

/* Called from PendSV with BASEPRI raised. Picks the most important ready
 * task; scanning from the task after the current one makes equal
 * priorities take turns (time slicing on each tick). */
__attribute__((used)) void switch_context(void)
{
    unsigned cur = (unsigned)(current_tcb - tasks);
    struct tcb *best = 0;
    for (unsigned i = 1; i <= task_count; i++) {
        struct tcb *t = &tasks[(cur + i) % task_count];
        if (t->state == TASK_READY && (!best || t->priority > best->priority))
            best = t;
    }
    current_tcb = best; /* never null: idle is always ready */
}

/* As xPortSysTickHandler + xTaskIncrementTick. */
void SysTick_Handler(void)
{
    __set_BASEPRI(MAX_SYSCALL_PRIORITY);
    __ISB();
    __DSB();
    uint32_t now = ++tick_count;
    for (unsigned i = 0; i < task_count; i++) {
        if (tasks[i].state == TASK_SLEEPING && tasks[i].wake_tick == now)
            tasks[i].state = TASK_READY;
    }
    /* Always ask for a switch: it also rotates equal-priority tasks. */
    SCB_ICSR = SCB_ICSR_PENDSVSET;
    __set_BASEPRI(0);
}

static void start_scheduler(void)
{
    SCB_SHPR3 |= KERNEL_PRIORITY << 16; /* PendSV */
    SCB_SHPR3 |= KERNEL_PRIORITY << 24; /* SysTick */
    SYST_CSR = 0;
    SYST_CVR = 0;
    SYST_RVR = CORE_CLOCK_HZ / TICK_HZ - 1u;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
    critical_nesting = 0;
    start_first_task();
}

/* ticks >= 1 */
static void task_sleep(uint32_t ticks)
{
    enter_critical();
    current_tcb->wake_tick = tick_count + ticks;
    current_tcb->state = TASK_SLEEPING;
    yield();
    exit_critical();
}

/* Inside a critical section. The switch happens when the caller's section
 * ends; the caller re-checks its condition after re-entering it. */
static void block_on(const void *obj)
{
    current_tcb->wait_obj = obj;
    current_tcb->state = TASK_BLOCKED;
    yield();
}

/* Inside a critical section. */
static void wake_all(const void *obj)
{
    for (unsigned i = 0; i < task_count; i++) {
        struct tcb *t = &tasks[i];
        if (t->state == TASK_BLOCKED && t->wait_obj == obj) {
            t->state = TASK_READY;
            t->wait_obj = 0;
            if (t->priority > current_tcb->priority)
                yield(); /* preempt as soon as the section ends */
        }
    }
}

static _Noreturn void block_forever(void)
{
    for (;;) {
        enter_critical();
        block_on(0);
        exit_critical();
    }
}

struct mutex {
    struct tcb *owner;
};

/* Returns 1 when it had to wait for another task to unlock. */
static int mutex_lock(struct mutex *m)
{
    int waited = 0;
    enter_critical();
    while (m->owner) {
        waited = 1;
        block_on(m);
        exit_critical();
        enter_critical();
    }
    m->owner = current_tcb;
    exit_critical();
    return waited;
}

static void mutex_unlock(struct mutex *m)
{
    enter_critical();
    m->owner = 0;
    wake_all(m);
    exit_critical();
}

#define QUEUE_LEN 2

struct queue {
    uint32_t items[QUEUE_LEN];
    unsigned head, count;
    char not_empty, not_full; /* their addresses are the wait objects */
};

static void queue_send(struct queue *q, uint32_t v)
{
    enter_critical();
    while (q->count == QUEUE_LEN) {
        block_on(&q->not_full);
        exit_critical();
        enter_critical();
    }
    q->items[(q->head + q->count) % QUEUE_LEN] = v;
    q->count++;
    wake_all(&q->not_empty);
    exit_critical();
}

static uint32_t queue_receive(struct queue *q)
{
    enter_critical();
    while (q->count == 0) {
        block_on(&q->not_empty);
        exit_critical();
        enter_critical();
    }
    uint32_t v = q->items[q->head];
    q->head = (q->head + 1) % QUEUE_LEN;
    q->count--;
    wake_all(&q->not_full);
    exit_critical();
    return v;
}

/* ==== application ==== */

#define ITEMS 6
#define NAP_AFTER 3
#define NAP_TICKS 10

static struct mutex print_mutex;
static struct queue numbers;
static volatile uint32_t spin_count[2];

/* "[t=<tick>] <a><n><b>", or without <n> when b is null. Caller holds
 * print_mutex. */
static void line_out(const char *a, uint32_t n, const char *b)
{
    char line[80];
    char *p = fmt_str(line, "[t=");
    p = fmt_dec(p, tick_count);
    p = fmt_str(p, "] ");
    p = fmt_str(p, a);
    if (b) {
        p = fmt_dec(p, n);
        p = fmt_str(p, b);
    }
    fmt_str(p, "\n");
    sh_write0(line);
}

static void fail(const char *what)
{
    char line[80];
    fmt_str(fmt_str(line, "rtos: FAIL: "), what);
    say(line);
    sh_exit(1);
}

static void producer(void *arg)
{
    (void)arg;
    for (uint32_t n = 1; n <= ITEMS; n++) {
        mutex_lock(&print_mutex);
        line_out("producer sending ", n, "");
        /* Sent with the print lock held: the consumer, woken by the send,
         * preempts at once and then has to wait for the lock, which is
         * what "(waited for lock)" in its line shows. */
        queue_send(&numbers, n);
        line_out("producer sent ", n, "");
        mutex_unlock(&print_mutex);
        task_sleep(2);
    }
    block_forever();
}

static void consumer(void *arg)
{
    (void)arg;
    for (uint32_t want = 1; want <= ITEMS; want++) {
        uint32_t n = queue_receive(&numbers);
        int waited = mutex_lock(&print_mutex);
        line_out("consumer got ", n, waited ? " (waited for lock)" : "");
        mutex_unlock(&print_mutex);
        if (n != want)
            fail("consumer: items out of order");
        if (n == NAP_AFTER) {
            /* Long enough for the queue to fill and the producer to block
             * in queue_send. */
            mutex_lock(&print_mutex);
            line_out("consumer napping ", NAP_TICKS, " ticks");
            mutex_unlock(&print_mutex);
            task_sleep(NAP_TICKS);
        }
    }
    mutex_lock(&print_mutex);
    /* Raw counts depend on timing; that both moved is what time slicing
     * between two never-blocking equal-priority tasks guarantees. */
    int both = spin_count[0] != 0 && spin_count[1] != 0;
    line_out(both ? "spinners both ran: yes" : "spinners both ran: no", 0, 0);
    say("rtos done");
    sh_exit(both ? 0 : 1);
}

static void spinner(void *arg)
{
    /* arg arrives in r0 of the initial frame: 0 or 1. */
    volatile uint32_t *counter = &spin_count[(uintptr_t)arg];
    for (;;)
        (*counter)++;
}

static void idle(void *arg)
{
    (void)arg;
    for (;;)
        __WFI();
}

int main(void)
{
    say("rtos: start");
    /* As FreeRTOS: interrupts the kernel handles stay masked until the
     * first task starts (the SVC handler clears BASEPRI). */
    __set_BASEPRI(MAX_SYSCALL_PRIORITY);
    __ISB();
    task_create(idle, "idle", 0, 0);
    task_create(spinner, "spinner-a", 1, (void *)0);
    task_create(spinner, "spinner-b", 1, (void *)1);
    task_create(producer, "producer", 2, 0);
    task_create(consumer, "consumer", 3, 0);
    start_scheduler();
    return 1; /* not reached */
}
