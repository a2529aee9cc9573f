#pragma once
// The run's device register accesses: each one kept (on disk, a chunk at a time) for the Perfetto
// trace's device tracks, and counted per register for the HTML report's table; named as the
// device's SVD names them ("USART1.DR").

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/events/device_names.h"
#include "analysis/writers/record_spool.h"
#include "emutrace/sink.h"

namespace emutrace::analysis {

class MmioLog final : public trace::TraceSink {
public:
    struct Access {
        std::uint64_t cycle = 0;
        std::uint32_t offset = 0, value = 0;
        std::uint16_t device = 0;
        std::uint8_t width = 0;
        bool write = false;
    };

    /// `keep_each`: spool every access (for a trace), not only the counts.
    explicit MmioLog(bool keep_each) : keep_each_(keep_each) {}
    std::uint32_t wants() const override { return trace::WantMmio; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;

    /// The accesses in order; false when the spool could not be read back.
    template <typename F>
    bool for_each(F&& f) const {
        return accesses_.for_each(std::forward<F>(f));
    }
    std::size_t size() const { return accesses_.size(); }
    std::size_t dropped() const { return dropped_ + accesses_.lost(); }
    /// How many devices the run named, and a device's name by index ("device7" for one it did not).
    std::size_t device_count() const { return names_.devices.size(); }
    std::string device_name(std::uint16_t device) const { return names_.device(device); }
    /// "USART1.DR" for an offset inside a register the device's SVD names, else "USART1+0x1c".
    std::string register_name(std::uint16_t device, std::uint32_t offset) const;
    static constexpr std::size_t kMaxAccesses = 2'000'000;  ///< beyond this, accesses are dropped (said in the file)

    /// Per register (and per unnamed offset): its reads and writes and when it was first and last used.
    struct Count {
        std::uint64_t reads = 0, writes = 0, first = 0, last = 0;
    };
    /// By (device << 32 | the register's offset, or the access's where no register is named).
    const std::map<std::uint64_t, Count>& counts() const { return counts_; }
    /// The register's offset an access at `offset` falls in, or `offset` itself.
    std::uint32_t register_at(std::uint16_t device, std::uint32_t offset) const;
    /// The report's table: the registers most used first, at most `rows`; `clock_hz` times them.
    std::string report_html(std::uint64_t clock_hz, std::size_t rows = 40) const;

private:
    bool keep_each_;
    RecordSpool<Access> accesses_;
    std::map<std::uint64_t, Count> counts_;
    std::uint64_t last_key_ = ~std::uint64_t{0};  ///< the counts' entry of the access before (a polling loop's)
    Count* last_count_ = nullptr;
    std::size_t dropped_ = 0;
    DeviceNames names_;
};

}  // namespace emutrace::analysis
