// A plug-in as an older emutrace would have built it: another ABI number, or another version.
#include <emutrace/plugin.h>

namespace {
std::vector<emutrace::AnalysisType> analyses() {
    return {};
}
}  // namespace

extern "C" __attribute__((visibility("default"))) const emutrace::PluginInfo* emutrace_plugin() {
#ifdef WRONG_ABI
    static const emutrace::PluginInfo info{EMUTRACE_PLUGIN_ABI + 1, "9.0.0", &analyses};
#else
    static const emutrace::PluginInfo info{EMUTRACE_PLUGIN_ABI, "0.1.0", &analyses};
#endif
    return &info;
}
