#include "analysis/writers/pft_writer.h"

#include "analysis/writers/trace_outputs.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "sources/ptm/coresight_formatter.h"
#include "sources/ptm/snapshot_writer.h"

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
    if (file_ && !bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
        throw ConfigError(output_.file + ": writing the PFT trace failed");
    if (output_.keep || !output_.snapshot.empty()) stream_.insert(stream_.end(), bytes.begin(), bytes.end());
    encoder_.clear();
}

void PftWriter::on_end() {
    encoder_.finish();
    drain();
    if (file_) {
        std::fclose(file_);
        file_ = nullptr;
    }
    if (output_.snapshot.empty()) return;
    decode::SnapshotSpec spec;
    if (!cpu_.empty()) spec.core_name = cpu_;
    spec.ptm = registers();
    spec.trace = decode::format_frames(stream_, encoder_.options().trace_id);
    spec.formatted = true;
    spec.memory = decode::code_images(image_);
    decode::write_snapshot(output_.snapshot, spec);
}

}  // namespace emutrace::analysis
