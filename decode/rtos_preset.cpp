#include "decode/rtos_preset.h"

namespace emutrace::decode {
namespace {

// FreeRTOS (V10, V11). A mutex or a semaphore is a queue of no items: xQueueGenericSend gives one
// (no item: an unlock) or sends to a queue (a send); xQueueSemaphoreTake takes one (a lock). The
// recursive mutex calls reach these two only at the outermost take and the last give, so each
// real acquisition and release is seen once. Event groups, task notifications and stream or
// message buffers release to every later wait (bits accumulate, bytes do not pair one to one with
// receives); a notification's object is the task notified, and the waiting task itself.
// Software timers need no row: their commands are queue sends the timer task receives.
const RtosPreset kFreeRtos{
    "freertos",
    "pxCurrentTCB",
    "tskTaskControlBlock",
    "pcTaskName",
    {"tasks.c", "queue.c", "list.c", "timers.c", "event_groups.c", "stream_buffer.c", "croutine.c", "port.c", "portasm.c", "heap_1.c", "heap_2.c",
     "heap_3.c", "heap_4.c", "heap_5.c"},
    {
        {"xQueueGenericSend", "send", "unlock"},
        {"xQueueGenericSendFromISR", "send", "unlock"},
        {"xQueueGiveFromISR", "unlock", ""},
        {"xQueueSemaphoreTake", "lock", ""},
        {"xQueueReceive", "receive", ""},
        {"xQueueReceiveFromISR", "receive", ""},
        {"xEventGroupSetBits", "unlock", ""},
        {"xEventGroupWaitBits", "lock", ""},
        {"xTaskGenericNotify", "unlock", ""},
        {"xTaskGenericNotifyFromISR", "unlock", ""},
        {"vTaskGenericNotifyGiveFromISR", "unlock", ""},
        {"ulTaskGenericNotifyTake", "lock", "", true},
        {"xTaskGenericNotifyWait", "lock", "", true},
        {"xStreamBufferSend", "unlock", ""},
        {"xStreamBufferSendFromISR", "unlock", ""},
        {"xStreamBufferReceive", "lock", ""},
        {"xStreamBufferReceiveFromISR", "lock", ""},
        {"xTaskCreate", "create", ""},
        {"xTaskCreateStatic", "create", ""},
        {"vTaskDelete", "delete", ""},
        {"vTaskDelay", "delay", "", false, true},
        {"xTaskDelayUntil", "delay", ""},
    },
    "pxTopOfStack",
};

// The project's own kernel (firmware/rtos/kernel.c): what tests/scenarios/rtos_replay.yaml names.
const RtosPreset kEmutraceKernel{
    "emutrace-kernel",
    "current_tcb",
    "tcb",
    "name",
    {"kernel.c"},
    {
        {"mutex_lock", "lock", ""},
        {"mutex_unlock", "unlock", ""},
        {"queue_send", "send", ""},
        {"queue_receive", "receive", ""},
        {"task_create", "create", ""},
        {"task_sleep", "delay", "", false, true},
    },
    "sp",
};

const RtosPreset* const kPresets[] = {&kFreeRtos, &kEmutraceKernel};

}  // namespace

const RtosPreset* find_rtos_preset(std::string_view name) {
    for (const RtosPreset* p : kPresets)
        if (p->name == name) return p;
    return nullptr;
}

std::string rtos_preset_names() {
    std::string out;
    for (const RtosPreset* p : kPresets) out += (out.empty() ? "" : ", ") + p->name;
    return out;
}

}  // namespace emutrace::decode
