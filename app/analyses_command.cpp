#include <cstdio>
#include <string>

#include "app/commands.h"

namespace emutrace::app {
namespace {

std::string event_kinds(std::uint32_t wants) {
    static constexpr std::pair<std::uint32_t, const char*> kNames[] = {
        {trace::WantBlocks, "blocks"},   {trace::WantBranches, "branches"}, {trace::WantMmio, "mmio"},          {trace::WantExceptions, "exceptions"},
        {trace::WantMarkers, "markers"}, {trace::WantOutput, "output"},     {trace::WantSamples, "PC samples"}, {trace::WantDataTrace, "data trace"}};
    std::string out;
    for (const auto& [bit, name] : kNames)
        if (wants & bit) out += (out.empty() ? "" : ", ") + std::string(name);
    return out.empty() ? "-" : out;
}

}  // namespace

int analyses_command(const AnalysisRegistry& registry) {
    for (const auto& t : registry.types()) {
        std::printf("%s\n  %s\n", t.name.c_str(), t.summary.c_str());
        std::string sections;
        for (const auto& s : t.sections) sections += (sections.empty() ? "" : ", ") + s + ":";
        std::printf("  scenario  %s\n", sections.empty() ? "-" : sections.c_str());
        for (const auto& o : t.outputs)
            std::printf("  output    %s %s (outputs.%s)  %s\n", o.flag().c_str(), o.value_name.c_str(), o.name.c_str(), o.help.c_str());
        for (const auto& f : t.flags)
            std::printf("  option    %s%s%s  %s\n", f.flag().c_str(), f.value_name.empty() ? "" : " ", f.value_name.c_str(), f.help.c_str());
        std::printf("  events    %s\n\n", event_kinds(t.wants).c_str());
    }
    std::printf("Recorded sources (emutrace decode SOURCE INPUT; the emulator is the default of run):\n");
    for (const auto& t : registry.sources()) {
        std::printf("%s\n  %s\n  input     %s%s\n", t.name.c_str(), t.summary.c_str(), t.input.c_str(), t.needs_firmware ? " (needs --elf)" : "");
        for (const auto& o : t.options)
            std::printf("  option    %s%s%s  %s\n", o.flag().c_str(), o.value_name.empty() ? "" : " ", o.value_name.c_str(), o.help.c_str());
    }
    std::printf(
        "\nEvery run also writes --json FILE (outputs.json) and --junit FILE (outputs.junit) with the analyses' test cases.\n"
        "Out-of-tree analyses and sources: --plugin FILE or a scenario's plugins: list (docs/design.md, \"Writing an analysis\").\n");
    return 0;
}

}  // namespace emutrace::app
