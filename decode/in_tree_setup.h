#pragma once
// What in-tree analyses and sources get beyond the public AnalysisSetup: the loaded ELF and its program,
// whose types are not installed (plug-ins use AnalysisSetup's lookups instead). Every setup
// emutrace builds is one, so in_tree() holds for any setup an in-tree factory is given.

#include "decode/elf_image.h"
#include "decode/program.h"
#include "decode/rtos_preset.h"
#include "emutrace/analysis.h"

namespace emutrace {

class InTreeSetup : public AnalysisSetup {
public:
    /// The loaded ELF.
    virtual const decode::ElfImage& image() const = 0;
    /// The image's functions and CFGs, built once for every analysis that asks.
    virtual const decode::Program& program() const = 0;
    /// Where the RTOS's threads keep their names (the scenario's rtos: section, its preset's DWARF).
    virtual decode::ThreadNames thread_names() const = 0;
};

/// The in-tree view of `setup`.
inline const InTreeSetup& in_tree(const AnalysisSetup& setup) {
    return dynamic_cast<const InTreeSetup&>(setup);  // a setup from elsewhere is a bug: std::bad_cast says so
}

}  // namespace emutrace
