/* A FreeRTOS application as a user writes one: two producer tasks and a consumer over a queue,
 * a mutex guarding a shared count, a binary semaphore the consumer gives when it is done.
 * With PLANT_RACE both producers also bump a counter without the mutex: the race the detector
 * must find, with both sites.
 *
 * Transcript: "freertos: consumed 24 items, sum 300, produced 24" and exit 0. */
#include <stdint.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "print.h"
#include "semihost.h"

#define ITEMS_PER_PRODUCER 12u

static QueueHandle_t items;
static SemaphoreHandle_t lock;
static SemaphoreHandle_t done;
static volatile uint32_t produced; /* guarded by lock */
#ifdef PLANT_RACE
static volatile uint32_t unguarded; /* not guarded: the planted race */
#endif

struct producer {
    uint32_t first;
    TickType_t period;
};

static void producer(void *arg)
{
    const struct producer *p = arg;
    for (uint32_t i = 0; i < ITEMS_PER_PRODUCER; i++) {
        uint32_t item = p->first + i;
        xSemaphoreTake(lock, portMAX_DELAY);
        produced = produced + 1;
        xSemaphoreGive(lock);
#ifdef PLANT_RACE
        unguarded = unguarded + 1;
#endif
        xQueueSend(items, &item, portMAX_DELAY);
        vTaskDelay(p->period);
    }
    vTaskDelete(NULL);
}

static void consumer(void *arg)
{
    (void)arg;
    uint32_t sum = 0, count = 0;
    while (count < 2 * ITEMS_PER_PRODUCER) {
        uint32_t item;
        if (xQueueReceive(items, &item, portMAX_DELAY) == pdTRUE) {
            sum += item;
            count++;
        }
    }
    xSemaphoreTake(lock, portMAX_DELAY);
    uint32_t made = produced;
    xSemaphoreGive(lock);
    char line[96];
    char *s = fmt_str(line, "freertos: consumed ");
    s = fmt_dec(s, count);
    s = fmt_str(s, " items, sum ");
    s = fmt_dec(s, sum);
    s = fmt_str(s, ", produced ");
    s = fmt_dec(s, made);
    fmt_str(s, "\n");
    sh_write0(line);
    xSemaphoreGive(done);
    vTaskDelete(NULL);
}

static void reporter(void *arg)
{
    (void)arg;
    xSemaphoreTake(done, portMAX_DELAY);
    sh_exit(0);
}

static const struct producer producer_a = {1, 2}, producer_b = {13, 3};

int main(void)
{
    items = xQueueCreate(4, sizeof(uint32_t));
    lock = xSemaphoreCreateMutex();
    done = xSemaphoreCreateBinary();
    xTaskCreate(producer, "prod-a", configMINIMAL_STACK_SIZE, (void *)&producer_a, 2, NULL);
    xTaskCreate(producer, "prod-b", configMINIMAL_STACK_SIZE, (void *)&producer_b, 2, NULL);
    xTaskCreate(consumer, "consumer", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    xTaskCreate(reporter, "reporter", configMINIMAL_STACK_SIZE, NULL, 3, NULL);
    vTaskStartScheduler();
    sh_write0("freertos: the scheduler returned\n");
    return 1;
}
