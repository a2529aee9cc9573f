#pragma once
// A capture and an emulated run of the same firmware side by side: coverage and profile of one
// side, and where the two paths part with per-function counts (emutrace crosscheck).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/profile.h"
#include "analysis/crosscheck/function_profile.h"
#include "analysis/crosscheck/program_flow.h"

namespace emutrace::decode {
class ElfImage;
}  // namespace emutrace::decode

namespace emutrace::analysis {

/// The sinks that reduce one run to what a capture and an emulation can both say.
class CrosscheckSide {
public:
    /// Without an image only the program flow is recorded.
    explicit CrosscheckSide(const decode::ElfImage* image);
    std::vector<trace::TraceSink*> sinks();

    /// "coverage: n of m functions executed" and the `top` functions by instructions.
    std::string coverage(std::size_t top) const;
    /// Per function: instructions, ranges, calls, cycles, size and covered bytes.
    nlohmann::json profile_json() const;

    const std::vector<FlowStep>& steps() const { return flow_.steps(); }
    std::uint64_t calls_of(std::uint32_t function) const;
    const FunctionProfile* profile() const { return profile_.get(); }

private:
    const decode::ElfImage* image_;
    FlowRecorder flow_;
    std::unique_ptr<FunctionProfile> profile_;
    std::unique_ptr<CallTracer> tracer_;  ///< calls and returns, from BL and BX LR/POP pc
    Profile calls_;
};

struct RunComparison {
    bool identical = false;
    std::string text;     ///< for the terminal
    nlohmann::json json;  ///< identical, steps, first divergence, per-function counts
};

/// Compares a capture with an emulated run step by step (cycle stamps aside) and per function.
RunComparison compare_runs(const CrosscheckSide& capture, const CrosscheckSide& emulated, const decode::ElfImage& image, std::uint64_t capture_cycles,
                           std::uint64_t emulated_cycles);

}  // namespace emutrace::analysis
