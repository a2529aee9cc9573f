#include "analysis/writers/etm_writer.h"

#include "analysis/writers/trace_outputs.h"

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
    write_trace_bytes(file_, output_.file, bytes, "ETM trace");
    if (!output_.snapshot.empty()) stream_.insert(stream_.end(), bytes.begin(), bytes.end());
    encoder_.clear();
}

void EtmWriter::on_end() {
    encoder_.finish();
    drain();
    close_trace_file(file_, output_.file, "ETM trace");
    if (output_.snapshot.empty()) return;
    decode::SnapshotSpec unit;
    unit.unit_name = "ETM_0";
    unit.unit_type = "ETM3";
    unit.ptm.idr = decode::Etmv3Encoder::kEtmIdr;
    unit.ptm.ctrl = encoder_.etmcr();
    unit.ptm.ccer = 0;
    unit.ptm.trace_id = encoder_.options().trace_id;
    write_flow_snapshot(output_.snapshot, unit, cpu_, stream_, image_);
}

}  // namespace emutrace::analysis
