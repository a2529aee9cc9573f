#pragma once
// Writes the event stream as JSON Lines, one event per line, for people and scripts to inspect
// a run (`emutrace run --events FILE`). Device names come from RunInfo.

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/events/device_names.h"
#include "emutrace/sink.h"

namespace emutrace::analysis {

class EventLogWriter final : public trace::TraceSink {
public:
    /// Opens `path` for writing; throws ConfigError when it cannot. After `limit` bytes it writes
    /// one last "truncated" line and a warning, and nothing more. A write that fails (a full
    /// disk) throws ConfigError naming the file.
    explicit EventLogWriter(const std::string& path, std::uint64_t limit = kDefaultLimit);
    static constexpr std::uint64_t kDefaultLimit = std::uint64_t{1} << 30;  ///< 1 GiB: about 10 M events
    ~EventLogWriter() override;
    EventLogWriter(const EventLogWriter&) = delete;
    EventLogWriter& operator=(const EventLogWriter&) = delete;

    std::uint32_t wants() const override {
        return trace::WantBlocks | trace::WantMmio | trace::WantOutput | trace::WantExceptions | trace::WantMarkers | trace::WantBranches |
               trace::WantWatches | trace::WantSamples | trace::WantDataTrace;
    }
    void on_start(const trace::RunInfo& info) override {
        names_.start(info);
        cores_ = info.cores;
    }
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;

private:
    std::string device(std::uint16_t index) const;
    /// ,"register":"RCC.CR" for an access to a register the device's SVD names; empty otherwise.
    std::string register_key(std::uint16_t device, std::uint32_t offset) const;
    void write_event(const trace::Event& e, const trace::EventBatch& batch);
    void write_mmio(const trace::Event& e);
    void write_output(const trace::Event& e, const trace::EventBatch& batch);
    void write_exception_entry(const trace::Event& e);
    void write_data_trace(const trace::Event& e);
    template <typename... Args>
    void print(const char* format, Args... args) {
        int n = std::fprintf(out_, format, args...);
        if (n > 0) written_ += static_cast<std::uint64_t>(n);
    }
    bool failed();
    void stop_at_limit(std::uint64_t cycle);
    std::string path_;
    std::uint64_t limit_;
    std::uint64_t written_ = 0;
    bool truncated_ = false;
    int error_ = 0;  ///< errno of the first failed write
    std::FILE* out_;
    DeviceNames names_;
    std::vector<trace::TracedCore> cores_;  ///< a capture's cores; empty for an emulated run
    std::size_t core_ = 0;                  ///< the one the events come from now
};

}  // namespace emutrace::analysis
