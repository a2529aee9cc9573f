#include "models/core.h"

#include "decode/elf_image.h"

#include <array>

namespace emutrace::models {
namespace {

using namespace emutrace::decode;

// The pipelines: the Cortex-M3's as measured on silicon; the M4's single-cycle MAC and long
// multiplies (M4 TRM); the M0's von Neumann core without load pipelining, branch prediction or
// IT, whose stores hold execute for their data phase (M0 TRM: LDR/STR 2, B taken 3).
constexpr PipelineParameters kM3Pipeline{};
constexpr PipelineParameters kM4Pipeline{.multiply_accumulate_cycles = 1,
                                         .iterative_long_multiply = false,
                                         .long_multiply_cycles = 1,
                                         .lsu_counts_fetch_waits = true,
                                         .fetch_holds_presented_address = true,
                                         .conditional_register_branches_at_decode = false,
                                         .held_branch_fetch_words = 2,
                                         .branch_follows_registered_fetch = true,
                                         .late_branch_stops_fetch = false,
                                         .load_behind_store_waits_for_fetch = true,
                                         .all_transfers_postpone_fetch = true,
                                         .writeback_transfers_pipeline = true,
                                         .store_data_phase_admits_transfers_only = true};
constexpr PipelineParameters kM0Pipeline{.multiply_accumulate_cycles = 1,
                                         .iterative_long_multiply = false,
                                         .long_multiply_cycles = 1,
                                         .decode_time_branches = false,
                                         .speculative_conditional_branches = false,
                                         .fold_it = false,
                                         .pipelined_loads = false,
                                         .stores_hold_execute = true};

constexpr std::array<CoreSpec, 4> kCores{{
    {CoreKind::CortexM0, "cortex-m0", "ARMv6-M", 0, 2, kM0Pipeline},
    {CoreKind::CortexM3, "cortex-m3", "ARMv7-M", IsaThumb2 | IsaDivide, 4, kM3Pipeline},
    {CoreKind::CortexM4, "cortex-m4", "ARMv7E-M", IsaThumb2 | IsaDivide | IsaDsp, 4, kM4Pipeline},
    {CoreKind::CortexM4F, "cortex-m4f", "ARMv7E-M+FPv4-SP", IsaThumb2 | IsaDivide | IsaDsp | IsaFpSingle, 4, kM4Pipeline},
}};

constexpr std::array<std::pair<IsaFeature, std::string_view>, 5> kFeatureNames{{
    {IsaFpDouble, "a double-precision FPU, which no Cortex-M emutrace models has"},
    {IsaFpSingle, "an FPU (cortex-m4f)"},
    {IsaDsp, "the DSP extension (cortex-m4)"},
    {IsaDivide, "hardware divide (ARMv7-M)"},
    {IsaThumb2, "Thumb-2 (ARMv7-M)"},
}};

}  // namespace

std::span<const CoreSpec> cores() {
    return kCores;
}

const CoreSpec& core_spec(CoreKind kind) {
    for (const auto& c : kCores)
        if (c.kind == kind) return c;
    return kCores[1];  // unreachable: every CoreKind has a row
}

std::optional<CoreSpec> find_core(std::string_view name) {
    for (const auto& c : kCores)
        if (c.name == name) return c;
    return std::nullopt;
}

std::optional<CoreSpec> core_built_for(const decode::BuildAttributes& build) {
    // Tag_CPU_arch values (ARM IHI 0045): 10 ARMv7 (M-profile: ARMv7-M), 11 ARMv6-M, 12 ARMv6S-M, 13 ARMv7E-M.
    switch (build.cpu_arch) {
        case 11:
        case 12: return core_spec(CoreKind::CortexM0);
        case 10: return build.profile == 'M' ? std::optional<CoreSpec>(core_spec(CoreKind::CortexM3)) : std::nullopt;
        case 13: return core_spec(build.fp ? CoreKind::CortexM4F : CoreKind::CortexM4);
        default: return std::nullopt;
    }
}

std::string core_names() {
    std::string out;
    for (const auto& c : kCores) {
        if (!out.empty()) out += ", ";
        out += c.name;
    }
    return out;
}

std::optional<std::string> unsupported(const CoreSpec& core, const decode::Instruction& insn) {
    std::uint8_t missing = insn.isa & ~core.isa;
    if (!missing) return std::nullopt;
    for (const auto& [feature, description] : kFeatureNames)
        if (missing & feature)
            return "'" + insn.text + "' needs " + std::string(description) + ", which " + std::string(core.name) + " (" + std::string(core.arch) +
                   ") does not have";
    return std::nullopt;
}

}  // namespace emutrace::models
