#pragma once
// The analyses and recorded sources emutrace knows: the built-in ones and those of loaded plug-ins.

#include <string>
#include <string_view>
#include <vector>

#include "emutrace/analysis.h"
#include "emutrace/source.h"

namespace emutrace {

class AnalysisRegistry {
public:
    /// The analyses and sources built into emutrace (analysis/registry.cpp, sources/registry.cpp).
    static AnalysisRegistry builtin();

    /// Adds an analysis; throws ConfigError when its name, a section or an option is taken.
    void add(AnalysisType type);
    /// Adds a recorded source; throws ConfigError when its name or an option is taken.
    void add(SourceType type);
    /// Loads a plug-in shared object and adds its analyses and sources. Throws ConfigError, one line naming
    /// the file, when it cannot be opened, is no emutrace plug-in, or was built for another version.
    /// Plug-ins stay loaded for the life of the process.
    void load_plugin(const std::string& path);

    const std::vector<AnalysisType>& types() const { return types_; }
    const AnalysisType* find(std::string_view name) const;
    const std::vector<SourceType>& sources() const { return sources_; }
    const SourceType* find_source(std::string_view name) const;
    /// Every top-level scenario key some analysis parses, and every outputs key.
    std::vector<std::string> sections() const;
    std::vector<std::string> outputs() const;

private:
    std::vector<AnalysisType> types_;
    std::vector<SourceType> sources_;
    /// Every --name some row or the run itself takes (outputs and flags share one command line).
    std::vector<std::string> option_names() const;
};

}  // namespace emutrace
