#pragma once
// The SWO byte stream a probe would receive from the emulated Cortex-M3/M4: ITM stimulus port
// writes, DWT exception trace, PC samples and data trace, local and global timestamps and periodic
// sync, made from the run's
// events exactly as the firmware programmed the ITM (TCR, TER, LAR), the DWT (CTRL) and the TPIU
// (ACPR, SPPR). The port's bandwidth is the TPIU's (models::TracePort): a packet that finds its
// FIFO full is lost and an overflow packet takes its place, as on silicon.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "emutrace/sink.h"
#include "models/trace_port.h"
#include "sources/itm/itm_packets.h"

namespace emutrace::analysis {

struct SwoStats {
    std::uint64_t bytes = 0, software = 0, exceptions = 0, pc_samples = 0, data_trace = 0, timestamps = 0, global_timestamps = 0, syncs = 0;
    std::uint64_t overflows = 0, lost = 0;   ///< overflow packets written, packets lost to a full FIFO
    std::uint64_t port_cycles_per_byte = 0;  ///< the rate at the end, in core cycles per byte
    std::string port0_text;                  ///< what ITM port 0 carried (up to 64 KiB)
    int formatter_id = 0;                    ///< the trace bus ID of the formatter frames; 0 when bypassed
};

class SwoWriter final : public trace::TraceSink {
public:
    /// Opens `path`; one that cannot be written throws ConfigError naming it.
    explicit SwoWriter(std::string path);
    ~SwoWriter() override;
    /// Register writes, exceptions and the DWT's PC samples and data trace: no block stream (the
    /// plain run's speed).
    std::uint32_t wants() const override { return trace::WantMmio | trace::WantExceptions | trace::WantSamples | trace::WantDataTrace; }
    void on_batch(const trace::EventBatch& batch) override;
    /// Writes what is left; a failed write throws ConfigError naming the file.
    void on_end() override;
    const SwoStats& stats() const { return stats_; }

private:
    void write_register(std::uint64_t cycle, std::uint32_t address, unsigned width, std::uint32_t value);
    void exception(std::uint64_t cycle, unsigned number, decode::itm::ExceptionFunction function);
    /// The port's rate as the TPIU's ACPR and SPPR set it, in both port models.
    void configure_ports();
    void pc_sample(std::uint64_t cycle, std::uint32_t pc);
    void data_trace(const trace::Event& e);
    /// Queues the packet built in packet_ at `cycle`, with its timestamp when `data`, if there is
    /// room: for a `stimulus` write in the ITM's FIFO, else in the port's.
    bool send(std::uint64_t cycle, bool data, bool stimulus);
    /// The periodic packets due before `cycle`: syncs (SYNCTAP) and global timestamps (GTSFREQ).
    void periodic(std::uint64_t cycle);
    void global_timestamp(std::uint64_t cycle);
    void schedule_periodic(std::uint64_t cycle);
    unsigned gts_mode() const { return (tcr_ >> 10) & 3u; }
    /// The CYCCNT bit DWT_CTRL.SYNCTAP taps (24, 26, 28), or 0.
    unsigned sync_tap() const { return (dwt_ctrl_ >> 10 & 3u) ? 22 + 2 * (dwt_ctrl_ >> 10 & 3u) : 0; }
    bool itm_on() const { return tcr_ & 1u; }
    bool dwt_on() const { return itm_on() && (tcr_ & (1u << 3)); }

    std::string path_;
    std::FILE* file_ = nullptr;
    std::vector<std::uint8_t> packet_, stamp_, out_;
    models::TracePort port_;           ///< every byte on the wire: room for the DWT's packets
    models::TracePort stimulus_port_;  ///< the stimulus packets alone, as the emulated ITM counts them
    /// Writes out_ to the file: as it is, or in formatter frames (whole frames until the end).
    void flush(bool last);

    std::uint32_t tcr_ = 0, ter_ = 0, dwt_ctrl_ = 0, acpr_ = 0, sppr_ = 2, ffcr_ = 0x100;
    /// The TPIU's formatter was on when the ITM was enabled: the stream goes in 16-byte frames
    /// under the ITM's trace bus ID.
    bool formatted_ = false;
    std::uint8_t trace_id_ = 0;
    bool locked_ = true, synced_ = false, overflowed_ = false;
    std::uint64_t last_timestamp_ = 0;
    std::uint64_t next_sync_ = ~std::uint64_t{0}, next_gts_ = ~std::uint64_t{0};
    std::uint64_t cyccnt_ = 0, cyccnt_since_ = 0;  ///< CYCCNT read cyccnt_ at cycle cyccnt_since_ (and counts on from there while enabled)
    std::uint64_t last_gts2_ = ~std::uint64_t{0};  ///< the global timestamp's bits [47:26] last sent
    std::vector<unsigned> active_;                 ///< exceptions entered and not yet returned from
    SwoStats stats_;
};

}  // namespace emutrace::analysis
