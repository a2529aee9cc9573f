#pragma once
// Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open: one track per thread
// with nested slices per call, instants for user events, constraint windows as async slices
// (named "VIOLATED" when they failed), a counter track of interrupt nesting, and with an MmioLog
// a track per device of its register accesses, each named by its register ("USART1.DR write").

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/constraints/constraint_checker.h"
#include "analysis/writers/mmio_log.h"
#include "analysis/writers/record_spool.h"
#include "config/text_file.h"

namespace emutrace::analysis {

class PerfettoWriter final : public CallListener {
public:
    /// `selected` says which functions' calls become slices (user events and windows always do).
    PerfettoWriter(const CallTracer& tracer, std::uint64_t clock_hz, std::function<bool(std::uint32_t)> selected)
        : tracer_(tracer), clock_hz_(clock_hz), selected_(std::move(selected)) {}
    void on_call_event(const CallEvent& e) override;
    /// A constraint window closed (ConstraintChecker::on_window): an async slice.
    void on_window(std::size_t constraint, const ConstraintWindow& window);
    /// The device register accesses to write as well (kept by the caller until write()).
    void add_mmio(const MmioLog& log) { mmio_ = &log; }
    /// Writes the file, event by event; `constraints` names the windows' constraints. Throws
    /// ConfigError when it cannot write.
    void write(const std::string& path, const std::vector<ConstraintResult>& constraints);
    static constexpr std::size_t kMaxEvents = 2'000'000;  ///< beyond this, calls are dropped (said in the file)

private:
    void write_event(config::TextFileWriter& out, const CallEvent& e, int& nesting);
    void write_mmio(config::TextFileWriter& out);
    static constexpr std::uint64_t kMmioTrack = 2000;  ///< + device index: the devices' tracks
    double microseconds(std::uint64_t cycle) const { return static_cast<double>(cycle) * 1e6 / static_cast<double>(clock_hz_); }
    struct Window {
        std::size_t constraint;
        ConstraintWindow window;
    };

    const CallTracer& tracer_;
    std::uint64_t clock_hz_;
    std::function<bool(std::uint32_t)> selected_;
    // Kept until the end of the run, when the selection of functions is known, on disk.
    RecordSpool<CallEvent> events_;
    RecordSpool<Window> windows_;
    std::size_t dropped_ = 0;
    const MmioLog* mmio_ = nullptr;
    // Written while the file is: each function's name as a JSON string, and the line being built.
    std::unordered_map<std::uint32_t, std::string> names_;
    std::string line_;
};

}  // namespace emutrace::analysis
