#pragma once
// The Cortex-M cores emutrace models and what each one's instruction set includes. Unicorn 2.0.1
// accepts a CPU model but executes Thumb-2, DSP and FPU instructions on every M-class model
// (measured: SDIV runs on its "Cortex-M0"), so the core's ISA is enforced here, per decoded block.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "decode/instruction_decoder.h"
#include "models/pipeline/pipeline_parameters.h"

namespace emutrace::decode {
struct BuildAttributes;
}

namespace emutrace::models {

/// What an extended exception frame (a core with an FPU, once thread code has used it) adds to the
/// 8 words: S0-S15 and FPSCR.
inline constexpr unsigned kFloatingFrameWords = 17;

enum class CoreKind : std::uint8_t { CortexM0, CortexM3, CortexM4, CortexM4F };

struct CoreSpec {
    CoreKind kind;
    std::string_view name;        ///< as written in scenarios and --cpu: "cortex-m3"
    std::string_view arch;        ///< "ARMv6-M", "ARMv7-M", "ARMv7E-M"
    std::uint8_t isa;             ///< decode::IsaFeature bits the core implements
    std::uint8_t priority_bits;   ///< implemented NVIC priority bits (typical silicon value)
    PipelineParameters pipeline;  ///< how its pipeline components behave (timing: pipeline)
};

/// Every modelled core, in a fixed order.
std::span<const CoreSpec> cores();
/// The row of `kind`.
const CoreSpec& core_spec(CoreKind kind);
/// The core named `name`, or nullopt.
std::optional<CoreSpec> find_core(std::string_view name);
/// The modelled core an image's build attributes name: ARMv6-M the Cortex-M0, ARMv7-M the
/// Cortex-M3, ARMv7E-M the Cortex-M4 (with an FPU the M4F); nullopt for any other architecture,
/// or when the image does not say.
std::optional<CoreSpec> core_built_for(const decode::BuildAttributes& build);
/// "cortex-m0, cortex-m3, cortex-m4, cortex-m4f", for error messages and --help.
std::string core_names();
/// Why `core` cannot execute `insn` ("SDIV needs ARMv7-M"), or nullopt when it can.
std::optional<std::string> unsupported(const CoreSpec& core, const decode::Instruction& insn);

}  // namespace emutrace::models
