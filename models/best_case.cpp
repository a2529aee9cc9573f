#include "models/best_case.h"

#include <algorithm>

#include "models/pipeline/pipeline.h"

namespace emutrace::models {

std::uint64_t best_case_cycles(std::span<const ClassifiedInstruction> instructions, const PipelineParameters& core) {
    std::uint64_t cycles = 0;
    const InstructionFacts fastest;  // no operand-dependent count: each class at its fewest
    for (const ClassifiedInstruction& i : instructions) {
        if (i.kind == InstructionClass::It && core.fold_it) continue;
        if (i.conditional) {  // skipped by its IT block (a B<cc> is one cycle not taken)
            ++cycles;
            continue;
        }
        // Execute issues one address phase a cycle, the first while the access before it ends.
        if (i.memory_access())
            cycles += std::max<unsigned>(i.transfers, 1);
        else
            cycles += compute_cycles(i, fastest, core);
    }
    return cycles;
}

}  // namespace emutrace::models
