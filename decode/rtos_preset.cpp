#include "decode/rtos_preset.h"

namespace emutrace::decode {
namespace {

// FreeRTOS (V10, V11): a semaphore or mutex is a queue. xQueueGenericSend gives a mutex (unlock)
// or sends to a queue or semaphore; xQueueSemaphoreTake takes a mutex (lock) or a semaphore
// (receive). xQueueCreateMutex gives its new mutex once, through xQueueGenericSend, which marks
// the object a mutex. The recursive variants call these two, so each real acquisition and
// release is seen once.
const RtosPreset kFreeRtos{
    "freertos",
    "pxCurrentTCB",
    "tskTaskControlBlock",
    "pcTaskName",
    {"tasks.c", "queue.c", "list.c", "timers.c", "event_groups.c", "stream_buffer.c", "croutine.c", "port.c", "portasm.c", "heap_1.c", "heap_2.c",
     "heap_3.c", "heap_4.c", "heap_5.c"},
    {
        {"xQueueCreateMutex", "", "", true},
        {"xQueueGenericSend", "send", "unlock", false},
        {"xQueueGenericSendFromISR", "send", "", false},
        {"xQueueGiveFromISR", "send", "", false},
        {"xQueueSemaphoreTake", "receive", "lock", false},
        {"xQueueReceive", "receive", "", false},
        {"xQueueReceiveFromISR", "receive", "", false},
        {"xTaskCreate", "create", "", false},
        {"xTaskCreateStatic", "create", "", false},
        {"vTaskDelete", "delete", "", false},
        {"vTaskDelay", "delay", "", false, true},
        {"xTaskDelayUntil", "delay", "", false},
    },
};

// The project's own kernel (firmware/rtos/kernel.c): what tests/scenarios/rtos_replay.yaml names.
const RtosPreset kEmutraceKernel{
    "emutrace-kernel",
    "current_tcb",
    "tcb",
    "name",
    {"kernel.c"},
    {
        {"mutex_lock", "lock", "", false},
        {"mutex_unlock", "unlock", "", false},
        {"queue_send", "send", "", false},
        {"queue_receive", "receive", "", false},
        {"task_create", "create", "", false},
        {"task_sleep", "delay", "", false, true},
    },
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
