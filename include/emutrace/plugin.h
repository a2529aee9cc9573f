#pragma once
// Out-of-tree analyses and sources: a shared object built against the installed emutrace package
// that the emutrace command loads with --plugin FILE (or a scenario's `plugins:` list). It
// defines its AnalysisType rows (and SourceType rows, if any) and names them once:
//
//     EMUTRACE_PLUGIN(my_analyses)                       // std::vector<emutrace::AnalysisType> my_analyses();
//     EMUTRACE_PLUGIN_WITH_SOURCES(my_analyses, my_sources)  // ... and std::vector<emutrace::SourceType> my_sources();
//
// The plug-in ABI changes by addition: emutrace keeps every released ABI's declarations and loads
// a plug-in built for one of them through an adapter (docs/design.md, "The plug-in ABI"), so a
// plug-in built for emutrace 0.2.0 (ABI 1) still loads. A plug-in of an ABI this emutrace does not
// know (a newer one) is refused with one line.

#include <vector>

#include "emutrace/analysis.h"
#include "emutrace/source.h"
#include "emutrace/version.h"

namespace emutrace {

/// What a plug-in's entry point returns. `abi` stays the first member in every ABI, so that it is
/// read before anything whose layout depends on it.
struct PluginInfo {
    int abi;              ///< EMUTRACE_PLUGIN_ABI the plug-in was built with
    const char* version;  ///< EMUTRACE_VERSION the plug-in was built with
    std::vector<AnalysisType> (*analyses)();
    std::vector<SourceType> (*sources)();  ///< since ABI 7; null: none
};

}  // namespace emutrace

/// The entry point's name, looked up with dlsym.
#define EMUTRACE_PLUGIN_ENTRY "emutrace_plugin"

#define EMUTRACE_PLUGIN_WITH_SOURCES(analyses_function, sources_function)                                                     \
    extern "C" __attribute__((visibility("default"))) const ::emutrace::PluginInfo* emutrace_plugin() {                       \
        static const ::emutrace::PluginInfo info{EMUTRACE_PLUGIN_ABI, EMUTRACE_VERSION, analyses_function, sources_function}; \
        return &info;                                                                                                         \
    }

#define EMUTRACE_PLUGIN(analyses_function) EMUTRACE_PLUGIN_WITH_SOURCES(&analyses_function, nullptr)
