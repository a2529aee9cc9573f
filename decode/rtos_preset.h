#pragma once
// What emutrace knows of an RTOS by name (`rtos: freertos` in a scenario, docs/scenario.md): where
// its current-thread pointer and its threads' names are, which of its functions synchronise and
// how, and which source files are the kernel. The offsets come from the firmware's DWARF, so one
// preset fits every configuration of the kernel. Adding an RTOS is one row of rtos_preset.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::decode {

/// A synchronisation function of the kernel and what a call of it is (the replay: section's roles).
struct RtosCall {
    std::string function;
    /// lock, unlock, send, receive, create, delete, delay, yield. An unlock is a release every
    /// later lock of the object acquires (a mutex's, a semaphore's, an event group's, a task's
    /// notification); a send is an item the next receive of the queue takes.
    std::string role;
    /// The role when the call passes no item (its second argument null): FreeRTOS gives a mutex
    /// or a semaphore, whose queues hold no items, and sends to a queue through the same function.
    /// Empty: the same role for every call.
    std::string role_without_item;
    /// The call's object is the calling thread, not its first argument (a task notification's
    /// take and wait).
    bool object_is_caller = false;
    /// Replay may hold a thread by calling it with r0 = 1 (a delay of one tick): vTaskDelay, not
    /// xTaskDelayUntil, whose r0 is a pointer.
    bool holds = false;
};

struct RtosPreset {
    std::string name;            ///< as a scenario names it
    std::string current_thread;  ///< the symbol of the current thread's control block pointer
    std::string thread_type;     ///< the control block's structure (DWARF tag or typedef)
    std::string name_member;     ///< its member holding the thread's name
    /// Its sources: the functions they define are the kernel's, whose accesses to its own state
    /// are synchronisation, not data (the race detector leaves them out).
    std::vector<std::string> kernel_files;
    std::vector<RtosCall> calls;
    /// Its member holding a switched-out thread's stack pointer, below which the context switch
    /// saved r4-r11 (and, with an FPU, EXC_RETURN and s16-s31 when the frame is an FP one) above
    /// the frame the exception entry stacked: a debugger reads a suspended thread's registers there.
    std::string stack_member = {};
};

/// Where the threads' names are in their control blocks (the scenario's rtos: section).
struct ThreadNames {
    std::optional<std::uint32_t> offset;
    std::uint32_t length = 16;
};

/// The preset of that name, or null.
const RtosPreset* find_rtos_preset(std::string_view name);
/// Their names, for messages.
std::string rtos_preset_names();

}  // namespace emutrace::decode
