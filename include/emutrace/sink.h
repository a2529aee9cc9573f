#pragma once
// The consumer side of the event model. A sink says which event kinds it needs so that a source
// installs only the hooks some sink asks for.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "emutrace/event.h"

namespace emutrace::trace {

/// Bit mask of the event kinds a sink wants delivered.
enum Capability : std::uint32_t {
    WantBlocks = 1u << 0,
    WantMmio = 1u << 1,
    WantOutput = 1u << 2,
    WantExceptions = 1u << 3,  ///< exception entry/return and thread switches
    WantMarkers = 1u << 4,     ///< user-defined events
    WantBranches = 1u << 5,    ///< calls, returns, jumps, vectors and resumes
    WantWatches = 1u << 6,     ///< watch points reached (Analysis::watch_points)
    WantMemory = 1u << 7,      ///< every load and store to RAM (slow: a hook per instruction and access)
    WantSamples = 1u << 8,     ///< the DWT's PC samples, when the firmware turns PC sampling on
    WantDataTrace = 1u << 9,   ///< the DWT's data trace, when the firmware sets a comparator to trace data
    /// With WantBlocks: the sink never reads a Block's cost (Event::channel). When every sink that
    /// wants blocks says so, a source may leave the cost 0 and hand each block over as it starts,
    /// instead of holding it until the next block's start gives its cycles (an ETM or PFT writer,
    /// which trace no cycles, runs the emulation faster so).
    BlockCostUnused = 1u << 10,
};

/// How a core numbers its exceptions (and whether it stacks a frame for them).
enum class ExceptionModel : std::uint8_t {
    MProfile,  ///< Cortex-M: 1 Reset, 2 NMI, 3 HardFault, ..., 15 SysTick, 16 + n IRQ n
    PftA,      ///< Cortex-A/R traced by a PTM: PFT 1.1's encoding (1 Debug halt, ..., 14 IRQ, 15 FIQ)
};

/// The readable name of exception `number` in `model` ("SysTick", "IRQ3", "Data abort").
std::string exception_name(ExceptionModel model, std::uint32_t number);

/// One trace source of a capture: a core and the trace unit that traced it.
struct TracedCore {
    std::string name;  ///< the trace unit, e.g. "PTM_0"
    std::string core;  ///< the core it traces, e.g. "cpu_3", and its type, e.g. "Cortex-A15"
    std::string core_type;
    std::uint8_t trace_id = 0;
    ExceptionModel exceptions = ExceptionModel::MProfile;
};

/// A device register as the part's SVD names it, for naming accesses ("RCC.CR") and their fields.
struct DeviceRegister {
    struct Field {
        std::string name;  ///< "HSERDY"
        std::uint8_t lsb = 0;
        std::uint8_t width = 1;
    };
    std::uint32_t offset = 0;  ///< from the device's base
    std::uint8_t bytes = 4;
    std::string name;  ///< "CR"
    std::vector<Field> fields;
};

/// What a source tells its sinks before the first batch.
struct RunInfo {
    std::string source;                ///< e.g. "emulator" or a capture file name
    std::string firmware;              ///< path of the ELF
    std::string cpu;                   ///< core name, e.g. "cortex-m3"
    std::uint64_t clock_hz = 0;        ///< converts cycle stamps to time
    std::vector<std::string> devices;  ///< device names, indexed by Event::channel
    std::string timing;                ///< the cycle model: "trm", "none"; empty for a capture
    std::vector<int> device_irqs;      ///< each device's external interrupt line, -1 for none
    /// A capture's trace sources, indexed by Source events; empty for an emulated run (one
    /// Cortex-M core, whose exception frames and stack pointers the events carry).
    std::vector<TracedCore> cores;
    /// Each device's named registers by offset (indexed like `devices`); empty for a device
    /// without an SVD description. Last member: plug-ins built before it read the others unchanged.
    std::vector<std::vector<DeviceRegister>> device_registers;
};

/// The register of device `device` at `offset` (an access's Event::channel and Event::extra), or null.
inline const DeviceRegister* register_at(const RunInfo& info, std::uint16_t device, std::uint32_t offset) {
    if (device >= info.device_registers.size()) return nullptr;
    for (const auto& r : info.device_registers[device])
        if (offset >= r.offset && offset < r.offset + r.bytes) return &r;
    return nullptr;
}

/// Memory a sink lends a source to write batches into, so that a sink which keeps every batch
/// anyway (BackgroundSink) gets it without a copy. One source writes into it at a time.
class BatchStorage {
public:
    virtual ~BatchStorage() = default;
    /// Room for `events` events; the source fills it and delivers it as its next batch.
    virtual Event* next_batch(std::size_t events) = 0;
};

class TraceSink {
public:
    virtual ~TraceSink() = default;
    /// The Capability bits of the events this sink needs (Stop events always arrive).
    virtual std::uint32_t wants() const = 0;
    virtual void on_start(const RunInfo& info) { (void)info; }
    /// Called once per batch, in order; the spans are only valid during the call.
    virtual void on_batch(const EventBatch& batch) = 0;
    /// Called once after the last batch, also when the run faulted.
    virtual void on_end() {}
    /// Storage this sink lends the source, or null: the source then writes into its own buffer.
    virtual BatchStorage* batch_storage() { return nullptr; }
};

}  // namespace emutrace::trace
