#include "analysis/writers/etm_writer.h"

#include "analysis/writers/trace_outputs.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "sources/ptm/coresight_formatter.h"
#include "sources/ptm/snapshot_writer.h"

namespace emutrace::analysis {

EtmWriter::EtmWriter(EtmOutput output, const decode::ElfImage& image) : output_(std::move(output)), image_(image), encoder_(output_.options, &image) {
    file_ = open_trace_outputs(output_.file, output_.snapshot, "ETM trace");
}

EtmWriter::~EtmWriter() {
    if (file_) std::fclose(file_);
}

void EtmWriter::on_batch(const trace::EventBatch& batch) {
    encoder_.encode(batch.events);
    if (encoder_.bytes().size() >= (1u << 16)) drain();
}

void EtmWriter::drain() {
    std::span<const std::uint8_t> bytes = encoder_.bytes();
    if (file_ && !bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
        throw ConfigError(output_.file + ": writing the ETM trace failed");
    if (!output_.snapshot.empty()) stream_.insert(stream_.end(), bytes.begin(), bytes.end());
    encoder_.clear();
}

void EtmWriter::on_end() {
    encoder_.finish();
    drain();
    if (file_) {
        const bool closed = std::fclose(file_) == 0;
        file_ = nullptr;
        if (!closed) throw ConfigError(output_.file + ": writing the ETM trace failed");
    }
    if (output_.snapshot.empty()) return;
    decode::SnapshotSpec spec;
    spec.unit_name = "ETM_0";
    spec.unit_type = "ETM3";
    if (!cpu_.empty()) spec.core_name = cpu_;
    spec.ptm.idr = decode::Etmv3Encoder::kEtmIdr;
    spec.ptm.ctrl = decode::Etmv3Encoder::kEtmCr;
    spec.ptm.ccer = 0;
    spec.ptm.trace_id = encoder_.options().trace_id;
    spec.trace = decode::format_frames(stream_, encoder_.options().trace_id);
    spec.formatted = true;
    spec.memory = decode::code_images(image_);
    decode::write_snapshot(output_.snapshot, spec);
}

}  // namespace emutrace::analysis
