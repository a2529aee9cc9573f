#pragma once
// Writes the run as a CoreSight PTM/PFT byte stream (--pft) and, optionally, as an OpenCSD/DS-5
// snapshot directory (--snapshot) that third-party trace tools decode as if captured on a board.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "emutrace/sink.h"
#include "sources/ptm/capture_decoder.h"
#include "sources/ptm/pft_encoder.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::analysis {

struct PftOutput {
    std::string file;      ///< raw PFT bytes, unformatted; empty for none
    std::string snapshot;  ///< snapshot directory; empty for none
    bool keep = false;     ///< keep the whole stream in memory (stream())
    decode::PftOptions options;
};

class PftWriter final : public trace::TraceSink {
public:
    /// `image` supplies the code dumps of a snapshot; it must outlive the writer.
    PftWriter(PftOutput output, const decode::ElfImage& image);
    ~PftWriter() override;

    /// No cycle-accurate mode: blocks' costs it does not read.
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantExceptions | trace::BlockCostUnused; }
    void on_start(const trace::RunInfo& info) override;
    void on_batch(const trace::EventBatch& batch) override;
    void on_end() override;

    /// The registers a decoder of this stream is configured with.
    decode::PtmRegisters registers() const;
    const decode::PftStats& stats() const { return encoder_.stats(); }
    /// The whole stream, when kept (PftOutput::keep or a snapshot).
    const std::vector<std::uint8_t>& stream() const { return stream_; }

private:
    void drain();

    PftOutput output_;
    const decode::ElfImage& image_;
    decode::PftEncoder encoder_;
    std::string cpu_;
    std::FILE* file_ = nullptr;
    std::vector<std::uint8_t> stream_;
};

}  // namespace emutrace::analysis
