#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/plugin_abi/abi1.h"
#include "emutrace/config_error.h"
#include "emutrace/plugin.h"
#include "emutrace/registry.h"

namespace emutrace {
namespace {

// Names every run has, that no analysis may take.
constexpr const char* kReservedOptions[] = {"json",       "junit",   "scenario", "cpu",     "clock", "timing", "max-instructions",
                                            "wall-clock", "stop-at", "cmdline",  "verbose", "quiet", "plugin", "help"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

const char* version() {
    return EMUTRACE_VERSION;
}

std::vector<std::string> AnalysisRegistry::option_names() const {
    std::vector<std::string> names = outputs();
    names.insert(names.end(), std::begin(kReservedOptions), std::end(kReservedOptions));
    for (const auto& t : types_)
        for (const auto& f : t.flags) names.push_back(f.name);
    for (const auto& t : sources_)
        for (const auto& o : t.options) names.push_back(o.name);
    return names;
}

void AnalysisRegistry::add(AnalysisType type) {
    if (type.name.empty() || !type.create) throw ConfigError("analysis '" + type.name + "': a name and a create function are required");
    if (find(type.name)) throw ConfigError("analysis '" + type.name + "' is registered twice");
    // Outputs and flags are both --names on one command line: one namespace, with the run's own.
    std::vector<std::string> secs = sections(), names = option_names();
    for (const auto& s : type.sections)
        if (contains(secs, s)) throw ConfigError("analysis '" + type.name + "': scenario section '" + s + "' is already taken");
    auto claim = [&](const AnalysisOption& o, const char* what) {
        if (contains(names, o.name)) throw ConfigError("analysis '" + type.name + "': " + what + " --" + o.name + " is already taken");
        names.push_back(o.name);
    };
    for (const auto& o : type.outputs) claim(o, "output");
    for (const auto& f : type.flags) claim(f, "option");
    types_.push_back(std::move(type));
}

void AnalysisRegistry::add(SourceType type) {
    if (type.name.empty() || !type.open) throw ConfigError("source '" + type.name + "': a name and an open function are required");
    if (find_source(type.name)) throw ConfigError("source '" + type.name + "' is registered twice");
    std::vector<std::string> names = option_names();
    for (const auto& o : type.options) {
        if (contains(names, o.name)) throw ConfigError("source '" + type.name + "': option --" + o.name + " is already taken");
        names.push_back(o.name);
    }
    sources_.push_back(std::move(type));
}

const SourceType* AnalysisRegistry::find_source(std::string_view name) const {
    for (const auto& t : sources_)
        if (t.name == name) return &t;
    return nullptr;
}

const AnalysisType* AnalysisRegistry::find(std::string_view name) const {
    for (const auto& t : types_)
        if (t.name == name) return &t;
    return nullptr;
}

std::vector<std::string> AnalysisRegistry::sections() const {
    std::vector<std::string> out;
    for (const auto& t : types_) out.insert(out.end(), t.sections.begin(), t.sections.end());
    return out;
}

std::vector<std::string> AnalysisRegistry::outputs() const {
    std::vector<std::string> out;
    for (const auto& t : types_)
        for (const auto& o : t.outputs) out.push_back(o.name);
    return out;
}

void AnalysisRegistry::load_plugin(const std::string& path) {
    // A bare name would make dlopen search the library path; a plug-in is a file the user names.
    std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw ConfigError(path + ": cannot load the plug-in: " + (why ? why : "unknown error"));
    }
    using Entry = const PluginInfo* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, EMUTRACE_PLUGIN_ENTRY));
    if (!entry) throw ConfigError(path + ": not an emutrace plug-in (no " EMUTRACE_PLUGIN_ENTRY "(); define it with EMUTRACE_PLUGIN)");
    const PluginInfo* info = entry();
    if (!info) throw ConfigError(path + ": its " EMUTRACE_PLUGIN_ENTRY "() returned nothing");
    // Only `abi` is read before it is known: the rest has that ABI's layout.
    std::vector<AnalysisType> analyses;
    std::vector<SourceType> sources;
    if (info->abi == EMUTRACE_PLUGIN_ABI) {
        if (info->analyses) analyses = info->analyses();
        if (info->sources) sources = info->sources();
    } else if (info->abi == 1) {  // emutrace 0.2.0
        analyses = abi1::adapt(*reinterpret_cast<const abi1::PluginInfo*>(info));
    } else {
        throw ConfigError(path + ": built for plug-in ABI " + std::to_string(info->abi) +
                          ", which this emutrace " EMUTRACE_VERSION " does not know (it loads ABI " + std::to_string(EMUTRACE_PLUGIN_ABI) +
                          " and 1, emutrace 0.2.0's); rebuild it against this version's package");
    }
    if (analyses.empty() && sources.empty()) throw ConfigError(path + ": the plug-in registers no analysis and no source");
    try {
        for (auto& a : analyses) add(std::move(a));
        for (auto& t : sources) add(std::move(t));
    } catch (const ConfigError& e) {
        throw ConfigError(path + ": " + e.what());
    }
    // The handle stays open: the analyses' code and vtables live in it until the process ends.
}

}  // namespace emutrace
