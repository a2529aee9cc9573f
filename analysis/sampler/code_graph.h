#pragma once
// The sampling graph of a function of a real program: its CFG (decode::Program) with each
// block's best-case cycles, a bound that every entry state of the core's pipeline and memories
// respects (models/best_case.h), so a plan holds under either cycle model.

#include <string>

#include "analysis/sampler/sampling_graph.h"
#include "models/core.h"

namespace emutrace::decode {
class ElfImage;
class Program;
}  // namespace emutrace::decode

namespace emutrace::analysis::sampler {

/// Throws ConfigError when `function` is not a sized function of the program.
SamplingGraph code_graph(const decode::ElfImage& image, const decode::Program& program, const std::string& function, models::CoreKind core);
SamplingGraph code_graph(const decode::ElfImage& image, const decode::Function& function, models::CoreKind core);

}  // namespace emutrace::analysis::sampler
