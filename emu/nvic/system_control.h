#pragma once
// The System Control Space at 0xE000E000 as a device: NVIC (ISER..IPR, STIR), SCB (CPUID, ICSR,
// VTOR, AIRCR, SCR, CCR, SHPR1-3, SHCSR, CFSR, HFSR, MMFAR, BFAR, CPACR), SysTick, and on a core
// with an FPU the FP context registers (FPCCR, FPCAR, FPDSCR). Unicorn maps nothing here, so
// without it firmware dies on its first VTOR or SHPR access.

#include <cstdint>

#include "emu/nvic/exception_state.h"
#include "emu/nvic/systick.h"
#include "emu/peripherals/peripheral.h"
#include "models/core.h"

namespace emutrace::emu::nvic {

constexpr std::uint32_t kScsBase = 0xE000E000;

/// What the SCS needs from the CPU side of the machine.
class ScsHost {
public:
    virtual ~ScsHost() = default;
    /// IPSR: the exception being handled, 0 in thread mode.
    virtual std::uint32_t current_exception() const = 0;
    /// Pending, enable or priority state changed: re-evaluate preemption at the next boundary.
    virtual void exceptions_changed() = 0;
    /// AIRCR.SYSRESETREQ was written.
    virtual void reset_requested() = 0;
    /// ACTLR was written (DISDEFWBUF, DISFOLD: what the core's timing follows).
    virtual void auxiliary_control(std::uint32_t actlr) = 0;
};

/// Fault status bits (CFSR: MMFSR [7:0], BFSR [15:8], UFSR [31:16]; HFSR).
enum FaultStatus : std::uint32_t {
    kIaccviol = 1u << 0,
    kDaccviol = 1u << 1,
    kMmarvalid = 1u << 7,
    kIbuserr = 1u << 8,
    kPreciserr = 1u << 9,
    kBfarvalid = 1u << 15,
    kUndefinstr = 1u << 16,
    kInvstate = 1u << 17,
    kInvpc = 1u << 18,
    kHfsrVecttbl = 1u << 1,
    kHfsrForced = 1u << 30,
};

class SystemControl final : public Peripheral {
public:
    SystemControl(const models::CoreSpec& core, unsigned priority_bits, unsigned irqs, std::uint64_t clock_hz);
    void bind(ScsHost& host) { scs_host_ = &host; }

    std::uint32_t size() const override { return 0x1000; }
    std::uint32_t read(std::uint32_t offset, unsigned width) override;
    void write(std::uint32_t offset, unsigned width, std::uint32_t value) override;
    void reset() override;

    ExceptionState& exceptions() { return state_; }
    const ExceptionState& exceptions() const { return state_; }
    SysTick& systick() { return systick_; }
    std::uint32_t vtor() const { return vtor_; }
    void set_vtor(std::uint32_t v) { vtor_ = v & 0xFFFFFF80u; }

    /// DEMCR.TRCENA: the DWT and ITM are enabled.
    bool trace_enabled() const { return demcr_ & (1u << 24); }
    void set_trace_enabled(bool on) { demcr_ = on ? demcr_ | (1u << 24) : demcr_ & ~(1u << 24); }

    /// The core has an FPU: exceptions stack an extended frame once thread code has used it.
    bool has_fpu() const { return (core_.isa & decode::IsaFpSingle) != 0; }
    /// FPCCR.LSPEN: an extended frame's S0-S15/FPSCR are written only when the handler first uses
    /// the FPU (lazy state preservation), not with the rest of the frame.
    bool lazy_fp_stacking() const { return fpccr_ & (1u << 30); }
    /// FPCAR: where the last extended frame's S0-S15/FPSCR area is (set at exception entry).
    void set_fp_context_address(std::uint32_t address) { fpcar_ = address & ~7u; }
    std::uint32_t fp_context_address() const { return fpcar_; }

    /// Records a fault's status bits and address registers, as the core does before taking it.
    void record_fault(std::uint32_t cfsr_bits, std::uint32_t address);
    void record_hard_fault(std::uint32_t hfsr_bits) { hfsr_ |= hfsr_bits; }

private:
    std::uint32_t read_word(std::uint32_t offset);
    void write_word(std::uint32_t offset, std::uint32_t value, std::uint32_t mask);
    std::uint32_t icsr() const;
    std::uint32_t shcsr() const;
    void write_icsr(std::uint32_t value);
    void write_shcsr(std::uint32_t value);
    void changed();

    const models::CoreSpec core_;
    ExceptionState state_;
    SysTick systick_;
    ScsHost* scs_host_ = nullptr;
    std::uint32_t vtor_ = 0, scr_ = 0, ccr_ = 0x200, actlr_ = 0, cpacr_ = 0;
    std::uint32_t cfsr_ = 0, hfsr_ = 0, mmfar_ = 0, bfar_ = 0, dfsr_ = 0;
    std::uint32_t demcr_ = 0;                           ///< CoreDebug DEMCR at 0xE000EDFC
    std::uint32_t fpccr_ = 0, fpcar_ = 0, fpdscr_ = 0;  ///< FP context control, address, default FPSCR
};

}  // namespace emutrace::emu::nvic
