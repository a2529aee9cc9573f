#pragma once
// Everything about a machine that is not the firmware: core, clock, memory map, devices, stop
// conditions, semihosting grants. Built from a scenario file by the app; every field has a default.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emu/peripherals/peripheral.h"
#include "models/core.h"
#include "models/flash_cache.h"

namespace emutrace::emu {

enum Access : std::uint8_t { AccessRead = 1, AccessWrite = 2, AccessExecute = 4 };

struct MemoryRegion {
    std::string name;
    std::uint32_t base = 0;
    std::uint32_t size = 0;
    /// Access bits; flash is AccessRead|AccessExecute, so a store to it is a fault.
    std::uint8_t access = AccessRead | AccessWrite | AccessExecute;
    /// An MMIO window: accesses go to the devices in it, or to the unclaimed-MMIO policy.
    bool mmio = false;
    /// Extra cycles per instruction-fetch word and per data access (flash at high clock: 1-5).
    std::uint32_t wait_states = 0;
    /// Code here is fetched over the System bus at this many cycles per 32-bit word, shared with
    /// data accesses (SRAM on an STM32F100: 2); 0 for a code bus that keeps up with execution.
    std::uint8_t fetch_word_cycles = 0;
    /// Data reads here take the port the instruction fetch uses, ahead of it (an STM32F1's flash
    /// interface serves ICode and DCode one transfer a cycle): a run of them starves the fetch.
    bool shares_fetch_port = false;
    /// An unaligned load or store here takes the extra transfers the core splits it into.
    bool times_unaligned = false;
    /// The name of a region this one mirrors, a boot alias (an STM32's flash at 0): at reset it
    /// holds a copy of what the image loads there, at the same offsets. Read-only regions only.
    std::string mirrors = {};
    /// A cache in front of this memory (a CC26x2's VIMS): fetches that miss it stall the core.
    std::optional<models::FlashCacheParameters> cache = {};
};

struct DeviceConfig {
    std::string name;                   ///< instance name, e.g. "uart0"
    std::string type;                   ///< registry type name, e.g. "cmsdk.uart"
    std::uint32_t base = 0;             ///< first bus address
    int irq = -1;                       ///< external interrupt line, -1 for none
    std::unique_ptr<Peripheral> model;  ///< the device; its size() is its window
    /// Interrupt lines 1, 2, ... of a device with several (DeviceHost::set_irq_line); -1 for none.
    std::vector<int> more_irqs = {};
};

/// What happens on an access to an MMIO window that no device claims.
enum class UnclaimedMmio : std::uint8_t {
    Fault,  ///< stop the run with a fault report (default: typos in addresses are found early)
    Log,    ///< read zero, ignore writes, warn once per address
};

struct StopConfig {
    std::uint64_t max_instructions = 0;       ///< 0 = no limit
    double wall_clock_seconds = 60;           ///< host time limit; 0 = no limit
    std::string at_symbol;                    ///< stop when execution reaches this symbol; empty = never
    std::optional<std::uint32_t> at_address;  ///< or this address
    bool on_hang = true;                      ///< stop on a branch-to-self no interrupt can leave
};

struct SemihostingConfig {
    /// Host directory the firmware may open files in; none = SYS_OPEN of files is refused.
    std::optional<std::filesystem::path> host_dir;
    std::string cmdline;      ///< returned by SYS_GET_CMDLINE
    std::uint64_t epoch = 0;  ///< SYS_TIME at emulated time 0 (seconds since 1970)
};

/// What happens when the firmware makes a memory or instruction fault.
enum class FaultPolicy : std::uint8_t {
    Stop,     ///< stop the run with a fault report (default: the bug is found where it happens)
    Handler,  ///< do what the core does: set CFSR/BFAR/MMFAR and take BusFault, MemManage,
              ///< UsageFault or HardFault, so the firmware's own fault handlers run
};

/// Something the outside world does to the machine at a point in emulated time.
struct Stimulus {
    enum class Kind : std::uint8_t { Irq, SetRegister, UartRx };
    Kind kind = Kind::Irq;
    double at_seconds = 0;      ///< first occurrence
    double every_seconds = 0;   ///< period; 0 = once
    double jitter_seconds = 0;  ///< each periodic occurrence moves by a seeded uniform offset in [-jitter, +jitter]
    std::uint64_t count = 1;    ///< occurrences of a periodic stimulus; 0 = unlimited
    int irq = -1;               ///< Kind::Irq: external interrupt line
    std::string device;         ///< SetRegister / UartRx: device instance name
    std::string register_name;  ///< SetRegister
    std::uint32_t value = 0;    ///< SetRegister
    std::string data;           ///< UartRx: bytes to receive
    std::string source;         ///< UartRx: a host file, FIFO or Unix socket polled at each occurrence instead of `data`
};

/// Where the firmware keeps its current thread, for thread-switch events (any RTOS).
struct RtosConfig {
    std::string current_thread;                ///< symbol of the current-thread pointer; empty = off
    std::optional<std::uint32_t> name_offset;  ///< offset of the name inside the thread control block
    std::uint32_t name_length = 16;            ///< bytes read for the name (stops at NUL)
    /// Offset of a switched-out thread's saved stack pointer in its control block (RtosPreset::
    /// stack_member): a debugger then shows suspended threads' registers; none = only the running one's.
    std::optional<std::uint32_t> stack_offset;
};

/// How executed blocks become cycles.
enum class TimingMode : std::uint8_t {
    Trm,   ///< per-block costs from the core's TRM instruction timings and the rules silicon taught them
    None,  ///< one cycle per instruction; no wait states
    /// The pipeline and bus components (models/pipeline), fed per translated block through the
    /// block-cost cache (default): the model measured against silicon.
    Pipeline,
};

/// "trm", "none", "pipeline": as scenarios and --timing name them.
constexpr std::string_view to_string(TimingMode m) {
    return m == TimingMode::Trm ? "trm" : m == TimingMode::None ? "none" : "pipeline";
}
inline std::optional<TimingMode> timing_mode_named(std::string_view name) {
    for (TimingMode m : {TimingMode::Trm, TimingMode::None, TimingMode::Pipeline})
        if (to_string(m) == name) return m;
    return std::nullopt;
}

class Debugger;

struct MachineConfig {
    models::CoreSpec core = *models::find_core("cortex-m3");
    std::uint64_t clock_hz = 25'000'000;  ///< converts cycles to emulated time
    /// Where the vector table is at reset; default: the ELF's lowest load address.
    std::optional<std::uint32_t> vector_table;
    /// Where execution starts instead of the reset vector (the stack pointer still comes from the
    /// vector table), e.g. past a board's start-up code that touches vendor peripherals.
    std::optional<std::uint32_t> entry;
    /// DEMCR.TRCENA set at reset, as an attached debugger (or start-up code that `entry` skips)
    /// leaves it, so the DWT counters can be enabled.
    bool trace_enabled = false;
    std::vector<MemoryRegion> memory;
    std::vector<DeviceConfig> devices;
    /// ARMv7-M bit-banding (emu/bit_band.h): the SRAM and peripheral aliases are mapped, and an
    /// access there reads or read-modify-writes one bit of its target. A property of the part.
    bool bit_band = false;
    UnclaimedMmio unclaimed_mmio = UnclaimedMmio::Fault;
    StopConfig stop;
    SemihostingConfig semihosting;
    bool echo_output = true;  ///< copy semihosting output to the host's stdout/stderr
    /// NVIC implemented priority bits; 0 = the core's usual value (CoreSpec::priority_bits).
    unsigned priority_bits = 0;
    unsigned irqs = 64;  ///< external interrupt lines the NVIC implements (1-240)
    FaultPolicy faults = FaultPolicy::Stop;
    TimingMode timing = TimingMode::Pipeline;
    /// A debugger to stop for (emu/debug.h), owned by the caller; none by default.
    Debugger* debugger = nullptr;
    /// With TimingMode::Pipeline: reuse what the pipeline did from a state it was in before with
    /// the same facts (the block-cost cache). Off, every instruction is stepped: the same cycles,
    /// slower, for checking the cache.
    bool timing_cache = true;
    /// With TimingMode::Pipeline: where the pipeline learns what ran. Block: per translated block,
    /// with hooks only where operands decide (fast). Instruction: a code hook on every instruction
    /// reads every fact from the registers (exact on every board, slower: the reference).
    enum class PipelineFacts : std::uint8_t { Block, Instruction } pipeline_facts = PipelineFacts::Block;
    std::vector<Stimulus> stimuli;
    std::uint64_t seed = 1;  ///< seeds stimulus jitter; same seed, same run
    RtosConfig rtos;
    /// A function whose calls become user-defined events: r0 is the id, r1 the payload.
    std::string user_event_function;
    /// Addresses where a Block event starts even inside a translated block (an analysis's basic
    /// block leaders, e.g. a loop header reached by falling through), sorted. The event's cost is
    /// then divided between the parts; stamps and totals stay the same.
    std::vector<std::uint32_t> trace_points;
    /// Code addresses where the machine reports a Watch event with r0 and r1 (for sinks that want
    /// watches): the entries and returns of the functions a recorder follows.
    std::vector<std::uint32_t> watch_points;
};

}  // namespace emutrace::emu
