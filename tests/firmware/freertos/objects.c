/* A third FreeRTOS application: kernel objects app.c and validation.c do not use, each handing a
 * value from one task to another that is race-free only through its handshake:
 *   - two binary semaphores, the filler giving `full` twice in a row: the second give fails, as an
 *     interrupt's does when it fires twice before its task runs;
 *   - an event group, the stager and the collector setting and waiting on each other's bit;
 *   - direct task notifications, a give and a take one way, a notify with a value and a wait back;
 *   - a stream buffer one way (read back in pieces) and a message buffer back;
 *   - a one-shot software timer, whose callback runs in the kernel's timer task and notifies the
 *     task that started it.
 * The finisher waits until every pair has set its bit in another event group, then prints what
 * each carried: "objects: semaphore 55, event group 55, notification 55, stream 55, timer 110"
 * (1 + 2 + ... + 10 each, doubled by the timer) and exits 0. */
#include <stdint.h>

#include "FreeRTOS.h"
#include "event_groups.h"
#include "message_buffer.h"
#include "semphr.h"
#include "stream_buffer.h"
#include "task.h"
#include "timers.h"

#include "print.h"
#include "semihost.h"

#define ROUNDS 10u

enum { DONE_SEMAPHORE = 1u << 0, DONE_GROUP = 1u << 1, DONE_NOTIFY = 1u << 2, DONE_STREAM = 1u << 3, DONE_TIMER = 1u << 4, ALL_DONE = 0x1fu };
enum { STAGED = 1u << 0, COLLECTED = 1u << 1 };

static SemaphoreHandle_t full, empty;
static EventGroupHandle_t handshake, done;
static StreamBufferHandle_t bytes;
static MessageBufferHandle_t replies;
static TimerHandle_t one_shot;
static TaskHandle_t notifier_task, notified_task, timer_user_task;

/* Each written by one side of a pair and read by the other, or by the finisher at the end. */
static volatile uint32_t slot, slot_sum;
static volatile uint32_t staged, staged_sum;
static volatile uint32_t note, note_sum;
static volatile uint32_t streamed, streamed_sum;
static volatile uint32_t timer_arg, timer_result, timer_sum;

static void filler(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        xSemaphoreTake(empty, portMAX_DELAY);
        slot = i;
        xSemaphoreGive(full);
        xSemaphoreGive(full); /* fails: the drainer, of lower priority, has not taken it yet */
    }
    vTaskDelete(NULL);
}

static void drainer(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < ROUNDS; ++i) {
        xSemaphoreTake(full, portMAX_DELAY);
        slot_sum = slot_sum + slot;
        xSemaphoreGive(empty);
    }
    xEventGroupSetBits(done, DONE_SEMAPHORE);
    vTaskDelete(NULL);
}

static void stager(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        staged = i;
        xEventGroupSetBits(handshake, STAGED);
        xEventGroupWaitBits(handshake, COLLECTED, pdTRUE, pdTRUE, portMAX_DELAY);
    }
    vTaskDelete(NULL);
}

static void collector(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < ROUNDS; ++i) {
        xEventGroupWaitBits(handshake, STAGED, pdTRUE, pdTRUE, portMAX_DELAY);
        staged_sum = staged_sum + staged;
        xEventGroupSetBits(handshake, COLLECTED);
    }
    xEventGroupSetBits(done, DONE_GROUP);
    vTaskDelete(NULL);
}

static void notifier(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        note = i;
        xTaskNotifyGive(notified_task);
        uint32_t ack = 0;
        xTaskNotifyWait(0, 0xffffffffu, &ack, portMAX_DELAY);
    }
    vTaskDelete(NULL);
}

static void notified(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
        note_sum = note_sum + note;
        xTaskNotify(notifier_task, i, eSetValueWithOverwrite);
    }
    xEventGroupSetBits(done, DONE_NOTIFY);
    vTaskDelete(NULL);
}

static void streamer(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        streamed = i;
        xStreamBufferSend(bytes, &i, sizeof i, portMAX_DELAY);
        uint32_t reply = 0;
        xMessageBufferReceive(replies, &reply, sizeof reply, portMAX_DELAY);
    }
    vTaskDelete(NULL);
}

static void stream_reader(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < ROUNDS; ++i) {
        uint8_t word[4];
        size_t got = 0;
        while (got < sizeof word) /* a byte at a time: the stream buffer's trigger level is 1 */
            got += xStreamBufferReceive(bytes, word + got, 1, portMAX_DELAY);
        streamed_sum = streamed_sum + streamed;
        xMessageBufferSend(replies, word, sizeof word, portMAX_DELAY);
    }
    xEventGroupSetBits(done, DONE_STREAM);
    vTaskDelete(NULL);
}

static void timer_fired(TimerHandle_t timer)
{
    (void)timer;
    timer_result = 2 * timer_arg;
    xTaskNotifyGive(timer_user_task);
}

static void timer_user(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ROUNDS; ++i) {
        timer_arg = i;
        xTimerStart(one_shot, portMAX_DELAY);
        ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
        timer_sum = timer_sum + timer_result;
    }
    xEventGroupSetBits(done, DONE_TIMER);
    vTaskDelete(NULL);
}

static void finisher(void *arg)
{
    (void)arg;
    xEventGroupWaitBits(done, ALL_DONE, pdFALSE, pdTRUE, portMAX_DELAY);
    char line[128];
    char *s = fmt_str(line, "objects: semaphore ");
    s = fmt_dec(s, slot_sum);
    s = fmt_str(s, ", event group ");
    s = fmt_dec(s, staged_sum);
    s = fmt_str(s, ", notification ");
    s = fmt_dec(s, note_sum);
    s = fmt_str(s, ", stream ");
    s = fmt_dec(s, streamed_sum);
    s = fmt_str(s, ", timer ");
    s = fmt_dec(s, timer_sum);
    fmt_str(s, "\n");
    sh_write0(line);
    sh_exit(0);
}

int main(void)
{
    full = xSemaphoreCreateBinary();
    empty = xSemaphoreCreateBinary();
    xSemaphoreGive(empty);
    handshake = xEventGroupCreate();
    done = xEventGroupCreate();
    bytes = xStreamBufferCreate(16, 1);
    replies = xMessageBufferCreate(32);
    one_shot = xTimerCreate("one-shot", 2, pdFALSE, NULL, timer_fired);
    xTaskCreate(filler, "filler", configMINIMAL_STACK_SIZE, NULL, 3, NULL);
    xTaskCreate(drainer, "drainer", configMINIMAL_STACK_SIZE, NULL, 2, NULL);
    xTaskCreate(stager, "stager", configMINIMAL_STACK_SIZE, NULL, 2, NULL);
    xTaskCreate(collector, "collector", configMINIMAL_STACK_SIZE, NULL, 2, NULL);
    xTaskCreate(notifier, "notifier", configMINIMAL_STACK_SIZE, NULL, 2, &notifier_task);
    xTaskCreate(notified, "notified", configMINIMAL_STACK_SIZE, NULL, 1, &notified_task);
    xTaskCreate(streamer, "streamer", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    xTaskCreate(stream_reader, "reader", configMINIMAL_STACK_SIZE, NULL, 2, NULL);
    xTaskCreate(timer_user, "timer-user", configMINIMAL_STACK_SIZE, NULL, 1, &timer_user_task);
    xTaskCreate(finisher, "finisher", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    vTaskStartScheduler();
    return 1;
}
