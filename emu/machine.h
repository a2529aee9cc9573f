#pragma once
// The emulated Cortex-M machine: the public surface over the Unicorn engine. Build it from a
// MachineConfig and an ELF image, attach sinks, run once.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "decode/elf_image.h"
#include "emu/machine_config.h"
#include "emu/run_result.h"
#include "emutrace/source.h"
#include "emutrace/steering.h"

namespace emutrace::emu {

namespace detail {
struct MachineState;
}

class Machine final : public trace::TraceSource {
public:
    /// Maps memory and devices and loads the image; throws ConfigError when the memory map is
    /// inconsistent or the image does not fit it. `image` must outlive the machine.
    Machine(MachineConfig config, const decode::ElfImage& image);
    ~Machine() override;
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;

    /// `sink` receives every event of the next run; it must outlive run().
    void add_sink(trace::TraceSink& sink) override;
    /// The run's steering (emutrace/steering.h): called synchronously at watch points, exception
    /// entries, device reads and the times it asks for. Must outlive run(); at most one.
    void set_steering(trace::Steering& steering);
    /// Told the cycles and instructions so far every 2^20 cycles or so of the run (where the
    /// limits are checked), also when no sink gets events: a progress display's figures. Keep it cheap.
    void set_progress(std::function<void(std::uint64_t cycles, std::uint64_t instructions)> observer);

    /// Resets from the vector table and runs until a stop condition. Guest misbehaviour never
    /// throws: it ends the run with StopReason::Fault. Sinks get their on_end() in every case.
    RunResult run();
    /// The TraceSource view of run(): the totals; result() has the rest.
    SourceTotals deliver() override;
    /// What the last run() or deliver() returned.
    const RunResult& result() const;

    const MachineConfig& config() const;
    /// `size` bytes of emulated memory at `address`, as the last run left them; empty when any of
    /// it is unmapped.
    std::vector<std::uint8_t> read_memory(std::uint32_t address, std::uint32_t size) const;

private:
    std::unique_ptr<detail::MachineState> impl_;
    RunResult last_;
};

}  // namespace emutrace::emu
