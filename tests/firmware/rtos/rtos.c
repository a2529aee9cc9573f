/* The test program of the preemptive kernel in firmware/rtos: its
 * transcript shows preemption, blocking and time slicing.
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
#include <stdint.h>

#include "cortex_m.h"
#include "kernel.h"
#include "print.h"
#include "semihost.h"
#ifdef BOARD_RECORDER
#include "replay_kernel.h" /* rtos_board: the kernel calls below are recorded by the firmware */
#endif

#define CORE_CLOCK_HZ 25000000u
#define QUEUE_LEN 2

static void say(const char *s)
{
    char line[80];
    fmt_str(fmt_str(line, s), "\n");
    sh_write0(line);
}

/* ==== application ==== */

#ifndef ITEMS /* bench_replay builds it with thousands */
#define ITEMS 6
#endif
#define NAP_AFTER 3
#define NAP_TICKS 10

static struct mutex print_mutex;
static uint32_t numbers_storage[QUEUE_LEN];
static struct queue numbers;
static volatile uint32_t spin_count[2];

/* "[t=<tick>] <a><n><b>", or without <n> when b is null. Caller holds
 * print_mutex. */
static void line_out(const char *a, uint32_t n, const char *b)
{
    char line[80];
    char *p = fmt_str(line, "[t=");
    p = fmt_dec(p, kernel_ticks());
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
#ifdef BOARD_RECORDER
    er_init((void *const volatile *)&current_tcb);
#endif
    say("rtos: start");
    queue_init(&numbers, numbers_storage, QUEUE_LEN);
    task_create(idle, "idle", 0, 0);
    task_create(spinner, "spinner-a", 1, (void *)0);
    task_create(spinner, "spinner-b", 1, (void *)1);
    task_create(producer, "producer", 2, 0);
    task_create(consumer, "consumer", 3, 0);
    kernel_start(CORE_CLOCK_HZ);
}
