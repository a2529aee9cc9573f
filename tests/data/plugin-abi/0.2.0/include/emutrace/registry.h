#pragma once
// The analyses emutrace knows: the built-in ones and those of loaded plug-ins.

#include <string>
#include <string_view>
#include <vector>

#include "emutrace/analysis.h"

namespace emutrace {

class AnalysisRegistry {
public:
    /// The analyses built into emutrace (analysis/registry.cpp).
    static AnalysisRegistry builtin();

    /// Adds an analysis; throws ConfigError when its name, a section or an option is taken.
    void add(AnalysisType type);
    /// Loads a plug-in shared object and adds its analyses. Throws ConfigError, one line naming
    /// the file, when it cannot be opened, is no emutrace plug-in, or was built for another version.
    /// Plug-ins stay loaded for the life of the process.
    void load_plugin(const std::string& path);

    const std::vector<AnalysisType>& types() const { return types_; }
    const AnalysisType* find(std::string_view name) const;
    /// Every top-level scenario key some analysis parses, and every outputs key.
    std::vector<std::string> sections() const;
    std::vector<std::string> outputs() const;

private:
    std::vector<AnalysisType> types_;
};

}  // namespace emutrace
