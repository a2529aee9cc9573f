#include "sources/itm/swo_capture.h"

#include "config/json_text.h"

#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "config/input_file.h"
#include "sources/itm/itm_packets.h"
#include "sources/ptm/coresight_formatter.h"
#include "trace/event_recorder.h"

namespace emutrace::decode::itm {
namespace {

constexpr std::size_t kLargestCapture = std::size_t{1} << 30;

// Packets to events: a local timestamp gives the time of the packets before it since the last,
// so they wait for it.
class Translator {
public:
    Translator(trace::EventRecorder& out, SwoSummary& s) : out_(out), s_(s) {}
    void take(const Packet& p) {
        ++s_.packets;
        if (p.kind == Packet::Kind::LocalTimestamp) {
            ++s_.timestamps;
            cycle_ += p.value;
            flush();
            return;
        }
        pending_.push_back(p);
        if (pending_.size() >= kMostPending) flush();  // a stream without timestamps: its packets in order
    }
    /// The packets still waiting for a timestamp, at the last one's time.
    void flush() {
        for (const Packet& p : pending_) translate(p);
        pending_.clear();
        flush_data();
    }
    std::uint64_t cycle() const { return cycle_; }

private:
    static constexpr std::size_t kMostPending = 4096;

    void translate(const Packet& p) {
        if (data_ && !(p.kind == Packet::Kind::Hardware && p.id >= 16 && p.id < 24)) flush_data();
        switch (p.kind) {
            case Packet::Kind::Sync: ++s_.syncs; break;
            case Packet::Kind::Overflow:
                ++s_.overflows;
                out_.push({cycle_, 0, 2, static_cast<std::uint32_t>(p.offset), trace::EventKind::Gap, 0, 0});
                break;
            case Packet::Kind::LocalTimestamp: break;  // taken above
            case Packet::Kind::GlobalTimestamp: global_timestamp(p); break;
            case Packet::Kind::Software: software(p); break;
            case Packet::Kind::Hardware: hardware(p); break;
            case Packet::Kind::Extension: break;
            case Packet::Kind::Unknown: ++s_.unknown; break;
        }
    }
    // GTS1 carries bits [25:0] (above them its last byte's ClkCh and Wrap), GTS2 bits [47:26].
    void global_timestamp(const Packet& p) {
        constexpr std::uint64_t kLow = (std::uint64_t{1} << 26) - 1;
        if (p.id == 1) {
            ++s_.global_timestamps;
            s_.global_timestamp = (s_.global_timestamp & ~kLow) | (p.value & kLow);
        } else {
            s_.global_timestamp = (s_.global_timestamp & kLow) | ((p.value & ((std::uint64_t{1} << 22) - 1)) << 26);
        }
    }
    void software(const Packet& p) {
        char text[4];
        for (unsigned i = 0; i < p.size; ++i) text[i] = static_cast<char>(p.value >> (8 * i));
        s_.port_bytes[p.id] += p.size;
        if (p.id == 0 && s_.port0_text.size() < (1u << 20)) s_.port0_text.append(text, p.size);
        out_.push_output(cycle_, static_cast<std::uint16_t>(0x100 + p.id),  // a device's output: the port is the device
                         std::string_view(text, p.size));
    }
    void hardware(const Packet& p) {
        if (p.id == 1 && p.size == 2) {  // exception trace
            ++s_.exceptions;
            const auto number = static_cast<std::uint32_t>(p.value & 0x1FF);
            const auto fn = static_cast<unsigned>(p.value >> 12 & 3);
            if (fn == static_cast<unsigned>(ExceptionFunction::Entered))
                out_.push({cycle_, 0, number, 0, trace::EventKind::ExceptionEntry, 0, 0});
            else if (fn == static_cast<unsigned>(ExceptionFunction::Exited))
                out_.push({cycle_, 0, number, 0, trace::EventKind::ExceptionReturn, 0, 0});
        } else if (p.id == 2 && p.size == 4) {  // a PC sample: the instruction then, as a block of one
            ++s_.pc_samples;
            out_.push({cycle_, static_cast<std::uint32_t>(p.value), 2, 1, trace::EventKind::Block, 0, 0});
        } else if (p.id == 2) {
            ++s_.sleep_samples;
        } else if (p.id >= 8 && p.id < 24) {
            data(p);
        }
    }
    // DWT data trace: a comparator's PC value or address offset packet, and the data value packet
    // that follows it, are one access.
    void data(const Packet& p) {
        ++s_.data_trace;
        const auto n = static_cast<std::uint16_t>(p.id < 16 ? (p.id - 8) / 2 : (p.id - 16) / 2);
        if (p.id < 16) {
            flush_data();
            data_ = trace::Event{cycle_, 0, 0, 0, trace::EventKind::DataTrace, 0, n};
            if (p.id % 2 == 0) {
                data_->extra = static_cast<std::uint32_t>(p.value);
                data_->channel |= trace::kDataTracePc;
            } else {
                data_->address = static_cast<std::uint32_t>(p.value);
                data_->channel |= trace::kDataTraceOffset;
            }
            return;
        }
        if (!data_ || (data_->channel & 3u) != n) {
            flush_data();
            data_ = trace::Event{cycle_, 0, 0, 0, trace::EventKind::DataTrace, 0, n};
        }
        data_->value = static_cast<std::uint32_t>(p.value);
        data_->width = p.size;
        data_->channel |= static_cast<std::uint16_t>(trace::kDataTraceValue | (p.id % 2 ? trace::kDataTraceWrite : 0));
        flush_data();
    }
    void flush_data() {
        if (!data_) return;
        out_.push(*data_);
        data_.reset();
    }

    trace::EventRecorder& out_;
    SwoSummary& s_;
    std::uint64_t cycle_ = 0;
    std::vector<Packet> pending_;
    std::optional<trace::Event> data_;  ///< a data trace access whose data value packet may follow
};

}  // namespace

SourceTotals SwoCapture::deliver() {
    std::vector<std::uint8_t> bytes = config::read_input_bytes(file_, "SWO capture", kLargestCapture);
    const bool framed = bytes.size() >= 4 && bytes[0] == 0xFF && bytes[1] == 0xFF && bytes[2] == 0xFF && bytes[3] == 0x7F;
    if (formatter_id_) bytes = decode::deformat_frames(bytes, formatter_id_);
    summary_ = SwoSummary{};
    summary_.port_bytes.assign(32, 0);
    summary_.bytes = bytes.size();
    summary_.framed = framed && !formatter_id_;
    trace::EventRecorder out;
    for (auto* sink : sinks_) out.add_sink(*sink);
    trace::RunInfo info;
    info.source = file_;
    for (int port = 0; port < 32; ++port) info.devices.push_back("ITM" + std::to_string(port));
    out.start(info);
    Translator translate(out, summary_);
    Decoder decoder;
    std::vector<Packet> packets;
    constexpr std::size_t kChunk = 1 << 16;
    for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
        packets.clear();
        decoder.feed(std::span(bytes).subspan(at, std::min(kChunk, bytes.size() - at)), packets);
        for (const Packet& p : packets) translate.take(p);
    }
    translate.flush();
    summary_.truncated = decoder.truncated();
    summary_.cycles = translate.cycle();
    out.push({translate.cycle(), 0, trace::kStopExited, 0, trace::EventKind::Stop, 0, 0});
    out.end();
    SourceTotals t;
    t.source = file_;
    t.instructions = summary_.pc_samples;
    t.cycles = summary_.cycles;
    t.complete = summary_.overflows == 0 && !summary_.truncated;
    return t;
}

std::string SwoCapture::summary() const {
    const SwoSummary& s = summary_;
    char line[256];
    std::string out = file_ + ": " + std::to_string(s.bytes) + " SWO bytes, " + std::to_string(s.packets) + " ITM/DWT packets\n";
    std::snprintf(
        line, sizeof line,
        "  exceptions    %llu trace packets\n  PC samples    %llu (%llu asleep)\n  data trace    %llu packets\n  timestamps    %llu, last at "
        "%llu\n",
        static_cast<unsigned long long>(s.exceptions), static_cast<unsigned long long>(s.pc_samples),
        static_cast<unsigned long long>(s.sleep_samples), static_cast<unsigned long long>(s.data_trace),
        static_cast<unsigned long long>(s.timestamps), static_cast<unsigned long long>(s.cycles));
    out += line;
    for (std::size_t port = 0; port < s.port_bytes.size(); ++port)
        if (s.port_bytes[port]) out += "  ITM port " + std::to_string(port) + "    " + std::to_string(s.port_bytes[port]) + " bytes\n";
    if (s.global_timestamps)
        out += "  global time   " + std::to_string(s.global_timestamps) + " stamps, last " + std::to_string(s.global_timestamp) + "\n";
    if (s.overflows) out += "  overflows     " + std::to_string(s.overflows) + " (the port could not keep up: packets were lost there)\n";
    if (s.unknown) out += "  unknown       " + std::to_string(s.unknown) + " bytes that start no packet\n";
    return out;
}

std::string SwoCapture::json() const {
    const SwoSummary& s = summary_;
    nlohmann::json ports = nlohmann::json::object();
    for (std::size_t port = 0; port < s.port_bytes.size(); ++port)
        if (s.port_bytes[port]) ports[std::to_string(port)] = s.port_bytes[port];
    return config::json_text(nlohmann::json{{"swo", file_},
                                            {"bytes", s.bytes},
                                            {"packets", s.packets},
                                            {"syncs", s.syncs},
                                            {"overflows", s.overflows},
                                            {"timestamps", s.timestamps},
                                            {"exceptions", s.exceptions},
                                            {"pc_samples", s.pc_samples},
                                            {"sleep_samples", s.sleep_samples},
                                            {"data_trace_packets", s.data_trace},
                                            {"unknown", s.unknown},
                                            {"cycles", s.cycles},
                                            {"global_timestamps", s.global_timestamps},
                                            {"last_global_timestamp", s.global_timestamp},
                                            {"port_bytes", ports},
                                            {"port0_text", s.port0_text},
                                            {"truncated", s.truncated}});
}

int SwoCapture::verdict(std::string& why) const {
    const SwoSummary& s = summary_;
    const std::string hint = s.framed ? "; it starts with a TPIU formatter sync (FF FF FF 7F): give the ITM's trace ID with --tpiu-id" : "";
    if (s.packets == s.unknown) {
        why = file_ + ": no ITM/DWT packet in " + std::to_string(s.bytes) + " bytes (is it a formatted TPIU stream, or UART bytes at another rate?)" +
              hint;
        return kNothingDecoded;
    }
    if (s.unknown || s.truncated) {
        why = file_ + ": part of the capture could not be decoded: " + std::to_string(s.unknown) + " bytes that start no packet" +
              (s.truncated ? ", the last packet cut off" : "") + hint;
        return kPartlyDecoded;
    }
    return 0;
}

}  // namespace emutrace::decode::itm
