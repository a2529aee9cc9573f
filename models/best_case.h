#pragma once
// The fewest cycles a run of instructions can take, whatever state the pipeline and the memories
// are in when it starts: for analyses that must never overestimate how long a path takes (the
// sampler's Δt, which is only guaranteed while every block takes at least its bound).
#include <cstdint>
#include <span>
#include "models/instruction_class.h"
#include "models/pipeline/pipeline_parameters.h"

namespace emutrace::models {

/// Cycles each instruction holds execute at the least: a folded IT none, a load pipelined behind
/// the access before it, one cycle per data transfer, a branch without its refill, a divide or
/// multiply at its fastest operands, no fetch or bus wait. Both cycle models respect it
/// (`timing: pipeline` and `trm`; not `none`, which charges one cycle to any instruction).
std::uint64_t best_case_cycles(std::span<const ClassifiedInstruction> instructions, const PipelineParameters& core);

}  // namespace emutrace::models
