/* The record/replay test application on the kernel in firmware/rtos (docs/replay.md). Its run
 * depends on the outside world, so two seeds of the scenario's stimulus jitter give two runs:
 *   - the sampler thread reads a sensor register that jittered stimuli change (input events),
 *     and sends each reading through a queue to the worker, which sums them under a mutex;
 *   - IRQ 1 (an envelope sensor, jittered) counts envelopes; the worker reads the count in a
 *     critical section, which orders it after the handler;
 *   - two equal-priority racers, started by the worker when the readings are done and then
 *     time-sliced by SysTick, count to RACE_ITERS each on one shared counter under a mutex and
 *     report it through a queue.
 * Built three ways:
 *   replay_app         race-free;
 *   replay_racy        RACY_COUNTER: the sampler and the worker also count readings in `hits`
 *                      without the lock: a data race the detector must report with both sites;
 *   replay_diverge     RACY_BRANCH: the racers count without the mutex, with a gap between load
 *                      and store, so how many updates are lost depends on where SysTick
 *                      preempts them: a replay on other timing sends another total and stops
 *                      there;
 *   replay_board       BOARD_RECORDER: race-free, its synchronisation, sensor reads and IRQ 1
 *                      recorded by the firmware itself (firmware/replay) into a RAM ring, as on
 *                      a board without a probe: its memory dump replays with --from-dump. */
#include <stdint.h>

#include "cortex_m.h"
#include "kernel.h"
#include "print.h"
#include "semihost.h"

#define CORE_CLOCK_HZ 25000000u
#define SENSOR_DATA REG32(0x40010004u)
#ifdef BOARD_RECORDER
#include "replay_kernel.h" /* the kernel calls below go through the recording wrappers */
#define READ_SENSOR() er_input32(&SENSOR_DATA)
#else
#define READ_SENSOR() SENSOR_DATA
#endif
#define READINGS 24
#define END_OF_READINGS 0xFFFFFFFFu
#ifndef RACE_ITERS
#ifdef RACY_BRANCH
#define RACE_ITERS 1500 /* long enough for SysTick to time-slice the racers mid-update */
#else
#define RACE_ITERS 150
#endif
#endif

static struct mutex print_mutex, stats_mutex;
#ifndef RACY_BRANCH
static struct mutex race_mutex;
#endif
static uint32_t readings_storage[4], done_storage[2], go_storage[2];
static struct queue readings, done, go;
static volatile uint32_t envelopes; /* written by IRQ 1 only */
static volatile uint32_t shared_count;
static uint32_t sum, count;
#ifdef RACY_COUNTER
static volatile uint32_t hits;
#endif

static void line_out(const char *a, uint32_t n)
{
    char line[80];
    char *p = fmt_str(line, "[t=");
    p = fmt_dec(p, kernel_ticks());
    p = fmt_str(p, "] ");
    p = fmt_str(p, a);
    p = fmt_dec(p, n);
    fmt_str(p, "\n");
    mutex_lock(&print_mutex);
    sh_write0(line);
    mutex_unlock(&print_mutex);
}

void IRQ1_Handler(void)
{
#ifdef BOARD_RECORDER
    er_interrupt();
#endif
    envelopes++;
}

static void sampler(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < READINGS; i++) {
        queue_send(&readings, READ_SENSOR());
#ifdef RACY_COUNTER
        hits++; /* races with the worker's */
#endif
        task_sleep(1);
    }
    queue_send(&readings, END_OF_READINGS);
    block_forever();
}

__attribute__((noinline)) static void count_once(void)
{
#ifdef RACY_BRANCH
    uint32_t v = shared_count;
    for (volatile int k = 0; k < 20; k++) {
    }
    shared_count = v + 1;
#else
    mutex_lock(&race_mutex);
    shared_count++;
    mutex_unlock(&race_mutex);
#endif
}

static uint32_t read_count(void)
{
#ifdef RACY_BRANCH
    return shared_count;
#else
    mutex_lock(&race_mutex);
    uint32_t v = shared_count;
    mutex_unlock(&race_mutex);
    return v;
#endif
}

static void racer(void *arg)
{
    (void)arg;
    queue_receive(&go); /* alone with the other racer: SysTick time-slices the two */
    for (uint32_t i = 0; i < RACE_ITERS; i++)
        count_once();
    queue_send(&done, read_count());
    block_forever();
}

static void worker(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t v = queue_receive(&readings);
        if (v == END_OF_READINGS)
            break;
        mutex_lock(&stats_mutex);
        sum += v;
        count++;
        mutex_unlock(&stats_mutex);
#ifdef RACY_COUNTER
        hits++;
#endif
        line_out("reading ", v);
    }
    enter_critical(); /* IRQ 1 is masked here: the count is read whole */
    uint32_t e = envelopes;
    exit_critical();
    line_out("sum ", sum);
    line_out("envelopes ", e);
    queue_send(&go, 1);
    queue_send(&go, 1);
    uint32_t a = queue_receive(&done), b = queue_receive(&done);
    line_out("racers ", a > b ? a : b);
    sh_write0("replay_app done\n");
    sh_exit(0);
}

int main(void)
{
#ifdef BOARD_RECORDER
    er_init((void *const volatile *)&current_tcb);
#endif
    queue_init(&readings, readings_storage, 4);
    queue_init(&done, done_storage, 2);
    queue_init(&go, go_storage, 2);
    nvic_set_priority(1, 0x80); /* below KERNEL_MAX_SYSCALL_PRIORITY: critical sections mask it */
    nvic_enable_irq(1);
    task_create(kernel_idle, "idle", 0, 0);
    task_create(racer, "racer-a", 1, 0);
    task_create(racer, "racer-b", 1, 0);
    task_create(sampler, "sampler", 2, 0);
    task_create(worker, "worker", 3, 0);
    kernel_start(CORE_CLOCK_HZ);
}
