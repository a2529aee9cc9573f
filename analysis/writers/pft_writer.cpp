#include "analysis/writers/pft_writer.h"

#include "analysis/writers/trace_outputs.h"

namespace emutrace::analysis {
namespace {

constexpr std::size_t kDrainBytes = 1u << 16;

}  // namespace

PftWriter::PftWriter(PftOutput output, const decode::ElfImage& image) : output_(std::move(output)), image_(image), encoder_(output_.options, &image) {
    file_ = open_trace_outputs(output_.file, output_.snapshot, "PFT trace");
}

PftWriter::~PftWriter() {
    if (file_) std::fclose(file_);
}

decode::PtmRegisters PftWriter::registers() const {
    decode::PtmRegisters r;
    r.ctrl = encoder_.etmcr();
    r.trace_id = encoder_.options().trace_id;
    return r;
}

void PftWriter::on_start(const trace::RunInfo& info) {
    cpu_ = info.cpu;
}

void PftWriter::on_batch(const trace::EventBatch& batch) {
    encoder_.encode(batch.events);
    if (encoder_.pending_bytes() >= kDrainBytes) drain();
}

void PftWriter::drain() {
    std::span<const std::uint8_t> bytes = encoder_.bytes();
    write_trace_bytes(file_, output_.file, bytes, "PFT trace");
    if (output_.keep || !output_.snapshot.empty()) stream_.insert(stream_.end(), bytes.begin(), bytes.end());
    encoder_.clear();
}

void PftWriter::on_end() {
    encoder_.finish();
    drain();
    close_trace_file(file_, output_.file, "PFT trace");
    if (output_.snapshot.empty()) return;
    decode::SnapshotSpec unit;
    unit.ptm = registers();
    write_flow_snapshot(output_.snapshot, unit, cpu_, stream_, image_);
}

}  // namespace emutrace::analysis
