// A plug-in of an ABI this emutrace does not know: a newer one, or one that was never released.
#include <emutrace/plugin.h>

namespace {
std::vector<emutrace::AnalysisType> analyses() {
    return {};
}
}  // namespace

extern "C" __attribute__((visibility("default"))) const emutrace::PluginInfo* emutrace_plugin() {
#ifdef NEWER_ABI
    static const emutrace::PluginInfo info{EMUTRACE_PLUGIN_ABI + 1, "9.0.0", &analyses, nullptr};
#else
    static const emutrace::PluginInfo info{3, "0.2.0", &analyses, nullptr};
#endif
    return &info;
}
