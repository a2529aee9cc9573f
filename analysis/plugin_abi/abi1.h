#pragma once
// Plug-in ABI 1 (emutrace 0.2.0) as its plug-ins were built: the classes whose layout has changed
// since, frozen under names of their own. Types that kept their layout (config::Node, TraceSink,
// RunInfo and SourceTotals, which only grew at their end, TestCase, AnalysisOption) are today's.
// Never edit: a plug-in built for 0.2.0 calls through exactly these vtables.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emutrace/analysis.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::abi1 {

class AnalysisSetup {
public:
    virtual ~AnalysisSetup() = default;
    virtual config::Node section(std::string_view key) const = 0;
    virtual std::string output(std::string_view key) const = 0;
    virtual std::optional<std::string> flag(std::string_view name) const = 0;
    virtual const std::string& scenario_file() const = 0;
    virtual const std::string& firmware() const = 0;
    virtual std::optional<std::uint32_t> address_of(std::string_view symbol) const = 0;
    virtual std::string describe(std::uint32_t address) const = 0;
    virtual std::uint64_t clock_hz() const = 0;
    virtual bool emulated() const = 0;
    virtual const decode::ElfImage& image() const = 0;
};

class Analysis {
public:
    virtual ~Analysis() = default;
    virtual std::vector<trace::TraceSink*> sinks() = 0;
    virtual std::vector<std::uint32_t> trace_points() const { return {}; }
    virtual void finish(const SourceTotals& totals) { (void)totals; }
    virtual std::string summary() const { return {}; }
    virtual std::string json() const { return {}; }
    virtual std::vector<TestCase> test_cases() const { return {}; }
    virtual std::vector<std::string> failures() const { return {}; }
};

using AnalysisFactory = std::unique_ptr<Analysis> (*)(const AnalysisSetup& setup);

struct AnalysisType {
    std::string name;
    std::string summary;
    std::vector<std::string> sections;
    std::vector<AnalysisOption> outputs;
    std::vector<AnalysisOption> flags;
    std::uint32_t wants = 0;
    AnalysisFactory create = nullptr;
};

struct PluginInfo {
    int abi;
    const char* version;
    std::vector<AnalysisType> (*analyses)();
};

/// Today's rows for an ABI 1 plug-in's: each analysis built and called through an adapter.
std::vector<emutrace::AnalysisType> adapt(const PluginInfo& info);

}  // namespace emutrace::abi1
