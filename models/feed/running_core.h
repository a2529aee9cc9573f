#pragma once
// What a cycle model's feed asks of the core that runs the program: its registers and memory as
// they are now, and a call when an instruction is about to run. emu implements it on Unicorn; a
// model reaches the emulator through nothing else, and the emulator knows nothing of the model
// but that it is fed.

#include <cstdint>
#include <span>

namespace emutrace::models {

class RunningCore {
public:
    virtual ~RunningCore() = default;
    /// r0-r12, sp (13), lr (14) or pc (15), as it is now.
    virtual std::uint32_t core_register(unsigned r) const = 0;
    /// xPSR as it is now (the flags in bits 31:28).
    virtual std::uint32_t program_status() const = 0;
    /// The bytes at `address`; false when any of them is not mapped.
    virtual bool read_code(std::uint32_t address, std::span<std::uint8_t> out) const = 0;
    /// From now on `before(context, address)` is called each time the instruction at `address`
    /// is about to run.
    using Before = void (*)(void* context, std::uint32_t address);
    virtual void call_before(std::uint32_t address, Before before, void* context) = 0;
    /// Code in [begin, end) is translated again before it next runs, so that calls added since
    /// see it.
    virtual void retranslate(std::uint32_t begin, std::uint32_t end) = 0;
};

}  // namespace emutrace::models
