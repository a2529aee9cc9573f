#pragma once
// Out-of-tree analyses: a shared object built against the installed emutrace package that the
// emutrace command loads with --plugin FILE (or a scenario's `plugins:` list). It defines its
// AnalysisType rows and names them once:
//
//     EMUTRACE_PLUGIN(my_analyses)   // std::vector<emutrace::AnalysisType> my_analyses();

#include <vector>

#include "emutrace/analysis.h"
#include "emutrace/version.h"

namespace emutrace {

/// What a plug-in's entry point returns. `abi` stays the first member in every version, so a
/// mismatch is read and refused before anything else is touched.
struct PluginInfo {
    int abi;              ///< EMUTRACE_PLUGIN_ABI the plug-in was built with
    const char* version;  ///< EMUTRACE_VERSION the plug-in was built with
    std::vector<AnalysisType> (*analyses)();
};

}  // namespace emutrace

/// The entry point's name, looked up with dlsym.
#define EMUTRACE_PLUGIN_ENTRY "emutrace_plugin"

#define EMUTRACE_PLUGIN(analyses_function)                                                                  \
    extern "C" __attribute__((visibility("default"))) const ::emutrace::PluginInfo* emutrace_plugin() {   \
        static const ::emutrace::PluginInfo info{EMUTRACE_PLUGIN_ABI, EMUTRACE_VERSION, &analyses_function}; \
        return &info;                                                                                       \
    }
