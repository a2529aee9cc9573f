#include "app/cli/analysis_options.h"

namespace emutrace::app::cli {

void AnalysisOptions::declare(Command& cmd, const AnalysisRegistry& registry) {
    for (const auto& t : registry.types()) {
        for (const auto& o : t.outputs) add(cmd, o, true);
        for (const auto& f : t.flags) add(cmd, f, false);
    }
}

void AnalysisOptions::declare_sources(Command& cmd, const AnalysisRegistry& registry) {
    for (const auto& t : registry.sources())
        for (const auto& o : t.options) add(cmd, AnalysisOption{o.name, o.value_name, o.help + " (" + t.name + " source)"}, false);
}

void AnalysisOptions::collect(std::map<std::string, std::string>& into) const {
    for (const auto& [name, option, value] : declared_)
        if (option.given()) into[name] = *value;
}

void AnalysisOptions::add(Command& cmd, const AnalysisOption& o, bool output) {
    std::string flag = o.flag();
    // The command's own option of that name wins (crosscheck's --snapshot is the capture it reads).
    if (cmd.has_option(flag)) return;
    auto value = std::make_shared<std::string>();
    Option opt = o.value_name.empty() ? cmd.flag(flag, o.help) : cmd.option(flag, *value, o.help + (output ? " (outputs." + o.name + ")" : ""));
    if (!o.value_name.empty()) opt.type_name(o.value_name);
    declared_.push_back({o.name, opt, value});
}

void NamedOutputs::add(Command& cmd, const std::string& flag, const std::string& name, const std::string& help, const std::string& type_name) {
    auto value = std::make_shared<std::string>();
    Option opt = cmd.option(flag, *value, help);
    if (!type_name.empty()) opt.type_name(type_name);
    outputs_.push_back({name, opt, value});
}

void NamedOutputs::collect(std::map<std::string, std::string>& into) const {
    for (const auto& [name, option, value] : outputs_)
        if (option.given()) into[name] = *value;
}

}  // namespace emutrace::app::cli
