/* A second FreeRTOS application, written after the rtos: freertos preset and kept apart from its
 * development (the given application is app.c): objects and calls app.c does not use. An
 * interrupt from the outside world (IRQ 3, a jittered stimulus) gives a counting semaphore from
 * its handler; the sampler task takes it, takes a recursive mutex twice (nested) to update the
 * readings, and sends each reading to the front of a queue; the logger receives with a timeout
 * (some receives fail); the pacer wakes every 2 ticks with xTaskDelayUntil, reads the count under
 * the recursive mutex, and ends the run after 20 readings and as many logged.
 *
 * Transcript: "validation: N readings, logged N, sum ..." (N at least 20, as the jitter falls)
 * and exit 0. */
#include <stdint.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "cortex_m.h"
#include "print.h"
#include "semihost.h"

#define READINGS 20u
#define SENSOR_IRQ 3u

static SemaphoreHandle_t ticks;    /* counting, given by the interrupt */
static SemaphoreHandle_t guard;    /* recursive mutex over readings */
static QueueHandle_t log_queue;
static volatile uint32_t readings; /* guarded by guard */
static volatile uint32_t logged, logged_sum; /* guarded by guard too (the first draft was not:
                                              * --races found the logger's writes and the pacer's reads) */

void IRQ3_Handler(void)
{
    BaseType_t woken = pdFALSE;
    xSemaphoreGiveFromISR(ticks, &woken);
    portYIELD_FROM_ISR(woken);
}

static void count_reading(void)
{
    xSemaphoreTakeRecursive(guard, portMAX_DELAY);
    readings = readings + 1;
    xSemaphoreGiveRecursive(guard);
}

static void sampler(void *arg)
{
    (void)arg;
    for (;;) {
        xSemaphoreTake(ticks, portMAX_DELAY);
        xSemaphoreTakeRecursive(guard, portMAX_DELAY); /* nested: the inner take counts only */
        count_reading();
        uint32_t n = readings;
        xSemaphoreGiveRecursive(guard);
        xQueueSendToFront(log_queue, &n, portMAX_DELAY);
    }
}

static void logger(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t n;
        if (xQueueReceive(log_queue, &n, pdMS_TO_TICKS(1)) == pdTRUE) {
            xSemaphoreTakeRecursive(guard, portMAX_DELAY);
            logged = logged + 1;
            logged_sum = logged_sum + n;
            xSemaphoreGiveRecursive(guard);
        }
    }
}

static void pacer(void *arg)
{
    (void)arg;
    TickType_t last = xTaskGetTickCount();
    for (;;) {
        xTaskDelayUntil(&last, 2);
        xSemaphoreTakeRecursive(guard, portMAX_DELAY);
        uint32_t n = readings, done = logged, sum = logged_sum;
        xSemaphoreGiveRecursive(guard);
        if (n >= READINGS && done >= READINGS) {
            char line[96];
            char *s = fmt_str(line, "validation: ");
            s = fmt_dec(s, n);
            s = fmt_str(s, " readings, logged ");
            s = fmt_dec(s, done);
            s = fmt_str(s, ", sum ");
            s = fmt_dec(s, sum);
            fmt_str(s, "\n");
            sh_write0(line);
            sh_exit(0);
        }
    }
}

int main(void)
{
    ticks = xSemaphoreCreateCounting(8, 0);
    guard = xSemaphoreCreateRecursiveMutex();
    log_queue = xQueueCreate(4, sizeof(uint32_t));
    nvic_set_priority(SENSOR_IRQ, 0xC0); /* below configMAX_SYSCALL_INTERRUPT_PRIORITY: may use FromISR calls */
    nvic_enable_irq(SENSOR_IRQ);
    xTaskCreate(sampler, "sampler", configMINIMAL_STACK_SIZE, NULL, 3, NULL);
    xTaskCreate(logger, "logger", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    xTaskCreate(pacer, "pacer", configMINIMAL_STACK_SIZE, NULL, 2, NULL);
    vTaskStartScheduler();
    return 1;
}
