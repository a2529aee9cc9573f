#pragma once
// Feeds the component pipeline (models/pipeline) from Unicorn, one instruction at a time, with
// what only execution tells: the data address from the registers as they are, a conditional
// branch's outcome from the flags, a divide's or long multiply's operand-dependent cycles. It
// also serves the pipeline's fetch and decode stages the static instructions they look ahead at.
// Used with TimingMode::Pipeline, where it replaces the per-block costs.

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "decode/instruction_decoder.h"
#include "emu/detail/unicorn_core.h"
#include "emu/memory_map.h"
#include "models/core.h"
#include "models/instruction_class.h"
#include "models/memory_system.h"
#include "models/pipeline/cached_pipeline.h"
#include "models/timing_model.h"

namespace emutrace::emu::detail {

class PipelineFeed final : public models::CodeView {
public:
    /// `cached`: through the block-cost cache (timing_cache); off, every instruction is stepped.
    PipelineFeed(const UnicornCore& uc, const MemoryPlan& plan, const models::CoreSpec& core, bool cached);

    const models::ClassifiedInstruction* instruction_at(std::uint32_t address) override;
    /// The instruction at `pc` is about to run, with the registers as Unicorn has them now.
    void executes(std::uint32_t pc);
    models::CachedPipeline& pipeline() { return *pipeline_; }

private:
    struct Code {
        decode::Instruction insn;
        models::ClassifiedInstruction cls;
        std::array<std::uint8_t, 4> bytes{};
        bool valid = false;
        bool writable = true;  ///< in memory a store can change: compared with memory when it runs
    };
    /// The cache's entry for `address` (decoded on first sight; `check`: read again if in RAM).
    const Code& code_at(std::uint32_t address, bool check);
    void set(Code& c, const decode::Instruction& insn) const;
    void decode_it_block(std::uint32_t it);
    std::uint32_t core_register(int r) const;
    bool condition_passes(unsigned cond) const;

    const UnicornCore& uc_;
    const MemoryPlan& plan_;
    models::CoreSpec core_;
    models::MemorySystem memory_;
    models::TimingModel operands_;  // the divider's and the iterative multiplier's operand timing
    decode::InstructionDecoder decoder_;
    std::unordered_map<std::uint32_t, Code> code_;
    struct Recent {
        std::uint32_t address = 1;
        const Code* code = nullptr;
    };
    std::array<Recent, 1024> recent_{};
    std::unique_ptr<models::CachedPipeline> pipeline_;
};

}  // namespace emutrace::emu::detail
