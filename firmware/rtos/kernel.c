/* A small preemptive kernel built on the same mechanisms as FreeRTOS's
 * ARM_CM3 port. Written for the Cortex-M3 as silicon runs it:
 *
 * - tasks run in thread mode on PSP; handlers and the kernel's assembly
 *   run on MSP;
 * - SVC starts the first task, PendSV (lowest priority) switches context,
 *   SysTick (lowest priority, 1 kHz) counts ticks and time-slices;
 * - kernel data is guarded by BASEPRI critical sections, which mask PendSV
 *   and SysTick but nothing more urgent than KERNEL_MAX_SYSCALL_PRIORITY.
 *
 * The API is in kernel.h. Users: tests/firmware/rtos (the kernel's own
 * test) and scenarios/franking. */
#include "kernel.h"

#include "cortex_m.h"
#include "semihost.h"

_Static_assert(offsetof(struct tcb, sp) == 0, "PendSV/SVC assembly needs sp first");
_Static_assert(offsetof(struct tcb, name) == 16, "scenarios' rtos.name_offset");

/* ==== port layer (what FreeRTOS keeps in portable/GCC/ARM_CM3) ==== */

#define MAX_SYSCALL_PRIORITY KERNEL_MAX_SYSCALL_PRIORITY
#define KERNEL_PRIORITY 0xF0u /* PendSV and SysTick: least urgent */
#define INITIAL_XPSR 0x01000000u /* EPSR.T: tasks run Thumb code */
/* An exception return to a PC with bit 0 set is UNPREDICTABLE. */
#define START_ADDRESS_MASK 0xFFFFFFFEu

enum task_state { TASK_READY, TASK_SLEEPING, TASK_BLOCKED };

struct tcb *volatile current_tcb;

static uint32_t critical_nesting;

void enter_critical(void)
{
    /* As vPortRaiseBASEPRI: the barriers make the new mask take effect
     * before the next kernel-data access. */
    __set_BASEPRI(MAX_SYSCALL_PRIORITY);
    __ISB();
    __DSB();
    critical_nesting++;
}

void exit_critical(void)
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

/* A task function must never return; like prvTaskExitError, trap it. */
static void task_exit_trap(void)
{
    sh_write0("rtos: FAIL: a task returned\n");
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
/* Naked functions cannot be instrumented (-finstrument-functions would call the hook with their
 * registers live): on-target tracing builds leave them out. */
__attribute__((naked, no_instrument_function)) void PendSV_Handler(void)
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
__attribute__((naked, no_instrument_function)) void SVC_Handler(void)
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
__attribute__((naked, noreturn, no_instrument_function)) static void start_first_task(void)
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

static struct tcb tasks[KERNEL_MAX_TASKS];
/* 8-byte aligned tops keep the AAPCS stack alignment inside tasks. */
static uint32_t stacks[KERNEL_MAX_TASKS][KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static unsigned task_count;
static volatile uint32_t tick_count;

void task_create(void (*entry)(void *), const char *name, uint32_t priority, void *param)
{
    if (task_count == KERNEL_MAX_TASKS) {
        sh_write0("rtos: FAIL: too many tasks (KERNEL_MAX_TASKS)\n");
        sh_exit(3);
    }
    struct tcb *t = &tasks[task_count];
    t->sp = init_stack(stacks[task_count] + KERNEL_STACK_WORDS, entry, param);
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

_Noreturn void kernel_start(uint32_t core_clock_hz)
{
    /* As FreeRTOS: interrupts the kernel handles stay masked until the
     * first task starts (the SVC handler clears BASEPRI). */
    __set_BASEPRI(MAX_SYSCALL_PRIORITY);
    __ISB();
    SCB_SHPR3 |= KERNEL_PRIORITY << 16; /* PendSV */
    SCB_SHPR3 |= KERNEL_PRIORITY << 24; /* SysTick */
    SYST_CSR = 0;
    SYST_CVR = 0;
    SYST_RVR = core_clock_hz / KERNEL_TICK_HZ - 1u;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
    critical_nesting = 0;
    start_first_task();
}

void kernel_idle(void *arg)
{
    (void)arg;
    for (;;)
        __asm__ volatile("wfi");
}

uint32_t kernel_ticks(void)
{
    return tick_count;
}

void task_sleep(uint32_t ticks)
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

_Noreturn void block_forever(void)
{
    for (;;) {
        enter_critical();
        block_on(0);
        exit_critical();
    }
}

int mutex_lock(struct mutex *m)
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

void mutex_unlock(struct mutex *m)
{
    enter_critical();
    m->owner = 0;
    wake_all(m);
    exit_critical();
}

void queue_init(struct queue *q, uint32_t *storage, unsigned capacity)
{
    q->items = storage;
    q->capacity = capacity;
    q->head = 0;
    q->count = 0;
}

void queue_send(struct queue *q, uint32_t v)
{
    enter_critical();
    while (q->count == q->capacity) {
        block_on(&q->not_full);
        exit_critical();
        enter_critical();
    }
    q->items[(q->head + q->count) % q->capacity] = v;
    q->count++;
    wake_all(&q->not_empty);
    exit_critical();
}

uint32_t queue_receive(struct queue *q)
{
    enter_critical();
    while (q->count == 0) {
        block_on(&q->not_empty);
        exit_critical();
        enter_critical();
    }
    uint32_t v = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    wake_all(&q->not_full);
    exit_critical();
    return v;
}
