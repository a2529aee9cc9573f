#pragma once
// Control-flow graphs as Graphviz DOT: one cluster per function, loop headers in bold. Commands
// add their own per-block annotations (the WCET path's counts, for instance).

#include <functional>
#include <string>
#include <vector>

#include "decode/program.h"

namespace emutrace::decode {

struct DotBlockStyle {
    std::string label;       ///< extra label lines ("\n"-separated, DOT-escaped by the caller)
    std::string attributes;  ///< extra node attributes, e.g. "color=red, penwidth=2"
};
/// For the k-th function of the list and one of its blocks.
using DotAnnotation = std::function<DotBlockStyle(std::size_t function, std::size_t block)>;

/// Throws ConfigError when the file cannot be written.
void write_cfg_dot(const std::string& path, const std::vector<const decode::Function*>& functions, const DotAnnotation& annotate = {});

}  // namespace emutrace::decode
