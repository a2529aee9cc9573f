#pragma once
// A marker plan as a C header that a firmware build includes, so that the same plan runs on a
// board: the marker variables, and one macro per instrumented block to place at the start of
// that block's source line (given in a comment from the ELF's DWARF).

#include <functional>
#include <optional>
#include <string>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::analysis::sampler {

/// `source_line` gives "file:line" for an address, when the ELF has DWARF.
std::string marker_header(const SamplingGraph& graph, const MarkerPlan& plan, const std::string& function, const std::string& scheme,
                          std::uint64_t delta_t, const std::function<std::optional<std::string>(std::uint32_t)>& source_line);

}  // namespace emutrace::analysis::sampler
