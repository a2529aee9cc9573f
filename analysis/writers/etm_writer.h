#pragma once
// Writes the run as the ETMv3.4 instruction trace of a Cortex-M3/M4 ETM (--etm), and optionally as
// an OpenCSD/DS-5 snapshot directory (--etm-snapshot) that OpenCSD's ETMv3 decoder reads.

#include <cstdio>
#include <string>
#include <vector>

#include "emutrace/sink.h"
#include "sources/etm/etmv3_encoder.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::analysis {

struct EtmOutput {
    std::string file;      ///< raw ETMv3 bytes, unformatted; empty for none
    std::string snapshot;  ///< snapshot directory; empty for none
    decode::EtmOptions options;
};

class EtmWriter final : public trace::TraceSink {
public:
    /// `image` supplies instruction sizes and a snapshot's code dumps; it must outlive the writer.
    EtmWriter(EtmOutput output, const decode::ElfImage& image);
    ~EtmWriter() override;
    /// Blocks' costs it does not read: cycle accuracy comes from the events' stamps.
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions | trace::BlockCostUnused; }
    void on_start(const trace::RunInfo& info) override { cpu_ = info.cpu; }
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;
    const decode::EtmStats& stats() const { return encoder_.stats(); }

private:
    void drain();

    EtmOutput output_;
    const decode::ElfImage& image_;
    decode::Etmv3Encoder encoder_;
    std::string cpu_;
    std::FILE* file_ = nullptr;
    std::vector<std::uint8_t> stream_;  ///< kept for a snapshot
};

}  // namespace emutrace::analysis
