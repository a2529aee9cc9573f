#include "analysis/swo/swo_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emutrace/config_error.h"
#include "sources/itm/itm_packets.h"
#include "sources/ptm/coresight_formatter.h"

namespace emutrace::analysis {
namespace {

using decode::itm::Encoder;
using decode::itm::ExceptionFunction;

constexpr std::uint32_t kItm = 0xE0000000, kDwtCtrl = 0xE0001000, kTpiu = 0xE0040000;
constexpr std::uint32_t kItmLar = kItm + 0xFB0, kItmTer = kItm + 0xE00, kItmTcr = kItm + 0xE80, kUnlock = 0xC5ACCE55;
constexpr std::uint32_t kTpiuAcpr = kTpiu + 0x010, kTpiuSppr = kTpiu + 0x0F0, kTpiuFfcr = kTpiu + 0x304;
constexpr std::uint32_t ENFCONT = 1u << 1;
constexpr std::size_t kFramePayload = 14;  // data bytes of a formatter frame with one ID
constexpr std::uint32_t TSENA = 1u << 1, SYNCENA = 1u << 2, EXCTRCENA = 1u << 16, PCSAMPLENA = 1u << 12, CYCCNTENA = 1u << 0;
constexpr std::uint32_t kDwtCyccnt = kDwtCtrl + 4;
constexpr std::uint64_t kNever = ~std::uint64_t{0};
constexpr std::size_t kFlushBytes = 1 << 16, kTextKept = 1 << 16;
constexpr std::size_t kMostNested = 512;  // more than the NVIC can nest: a stream of entries without returns stays bounded

}  // namespace

SwoWriter::SwoWriter(std::string path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) throw ConfigError(path_ + ": cannot write the SWO stream: " + std::strerror(errno));
    // A debugger that sets up SWO leaves the TPIU in NRZ with the formatter bypassed; the
    // firmware's own ACPR and SPPR writes take over from there.
    configure_ports();
}

void SwoWriter::configure_ports() {
    port_.configure(acpr_, models::TracePort::encoding_of(sppr_));
    stimulus_port_.configure(acpr_, models::TracePort::encoding_of(sppr_));
}

SwoWriter::~SwoWriter() {
    if (file_) std::fclose(file_);
}

bool SwoWriter::send(std::uint64_t cycle, bool data, bool stimulus) {
    std::vector<std::uint8_t>& stamp = stamp_;  // kept between packets: no allocation per packet
    stamp.clear();
    const bool delayed = port_.queued(cycle) > 0;
    std::uint64_t stamped = last_timestamp_;
    if (data && (tcr_ & TSENA) && cycle > last_timestamp_) {  // TSPrescale divides the core clock
        const unsigned prescale = 1u << (2 * ((tcr_ >> 8) & 3));
        const std::uint64_t ticks = (cycle - last_timestamp_) / prescale;
        if (ticks) {
            Encoder(stamp).local_timestamp(ticks, delayed);
            stamped += ticks * prescale;
        }
    }
    const bool fifo_was_empty = port_.queued(cycle) == 0;
    const std::uint32_t need = static_cast<std::uint32_t>(packet_.size() + stamp.size() + (overflowed_ ? 1 : 0));
    // A stimulus write is taken when the ITM's FIFO has room, decided exactly as the emulated ITM
    // decided it (the firmware saw that as FIFOREADY); a DWT packet when the port has.
    const auto size = static_cast<std::uint32_t>(packet_.size());
    if (stimulus ? !stimulus_port_.has_room(cycle, size) : !port_.has_room(cycle, need)) {
        ++stats_.lost;
        overflowed_ = true;  // the timestamp counter keeps running: the next stamp covers this one's time
        packet_.clear();
        return false;
    }
    if (overflowed_) {  // said once, before the first packet that fits again
        out_.push_back(0x70);
        ++stats_.overflows;
        overflowed_ = false;
    }
    out_.insert(out_.end(), packet_.begin(), packet_.end());
    out_.insert(out_.end(), stamp.begin(), stamp.end());
    stats_.timestamps += !stamp.empty();
    last_timestamp_ = stamped;
    port_.push(cycle, need);
    if (stimulus) stimulus_port_.push(cycle, size);
    packet_.clear();
    if (out_.size() >= kFlushBytes) flush(false);
    if (data && gts_mode() == 3 && fifo_was_empty) global_timestamp(cycle);  // GTSFREQ 3: after a packet that found the FIFO empty
    return true;
}

// ITM_TCR.GTSFREQ 1 and 2: a global timestamp every 2^7 or 2^13 cycles of its clock (the core's
// here); DWT_CTRL.SYNCTAP with ITM_TCR.SYNCENA and CYCCNTENA: a sync each time CYCCNT's bit 24,
// 26 or 28 changes. Both are sent at their own cycles before the event at `cycle`.
void SwoWriter::periodic(std::uint64_t cycle) {
    while (std::min(next_sync_, next_gts_) < cycle) {
        if (next_sync_ <= next_gts_) {
            Encoder(packet_).sync();
            stats_.syncs += send(next_sync_, false, false);
            next_sync_ += std::uint64_t{1} << sync_tap();
        } else {
            global_timestamp(next_gts_);
            next_gts_ += gts_mode() == 1 ? 128 : 8192;
        }
    }
}

void SwoWriter::global_timestamp(std::uint64_t cycle) {
    const std::uint64_t high = cycle >> 26;
    const bool wrap = high != last_gts2_;
    Encoder(packet_).global_timestamp1(cycle, wrap);
    if (!send(cycle, false, false)) return;
    ++stats_.global_timestamps;
    if (!wrap) return;
    Encoder(packet_).global_timestamp2(cycle);
    if (send(cycle, false, false)) last_gts2_ = high;
}

// When the next periodic packets are due, from `cycle` on, as the registers are now.
void SwoWriter::schedule_periodic(std::uint64_t cycle) {
    // The next cycle at which a counter that reads `value` now passes a multiple of 2^bits.
    auto next_multiple = [&](std::uint64_t value, unsigned bits) {
        const std::uint64_t period = std::uint64_t{1} << bits;
        return cycle + (period - value % period);
    };
    const std::uint64_t cyccnt = cyccnt_ + (dwt_ctrl_ & CYCCNTENA ? cycle - cyccnt_since_ : 0);
    next_sync_ = itm_on() && (tcr_ & SYNCENA) && (dwt_ctrl_ & CYCCNTENA) && sync_tap() ? next_multiple(cyccnt, sync_tap()) : kNever;
    next_gts_ = itm_on() && (gts_mode() == 1 || gts_mode() == 2) ? next_multiple(cycle, gts_mode() == 1 ? 7 : 13) : kNever;
}

void SwoWriter::flush(bool last) {
    std::size_t n = out_.size();
    std::vector<std::uint8_t> frames;
    std::span<const std::uint8_t> bytes(out_.data(), n);
    if (formatted_) {
        if (!last) n -= n % kFramePayload;                              // a frame split over two writes would be padded in the middle
        if (stats_.bytes == 0 && n) frames = {0xFF, 0xFF, 0xFF, 0x7F};  // a full-word sync: the probe aligns on it
        const auto body = decode::format_frames(std::span(out_.data(), n), trace_id_);
        frames.insert(frames.end(), body.begin(), body.end());
        bytes = frames;
    }
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) throw ConfigError(path_ + ": cannot write the SWO stream");
    stats_.bytes += bytes.size();
    out_.erase(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(n));
}

void SwoWriter::write_register(std::uint64_t cycle, std::uint32_t address, unsigned width, std::uint32_t value) {
    if (address >= kItm && address < kItm + 0x80) {
        const unsigned port = (address - kItm) / 4;
        if (!itm_on() || !(ter_ >> port & 1u)) return;
        Encoder(packet_).software(port, width, value);
        if (send(cycle, true, true)) {
            ++stats_.software;
            if (port == 0 && stats_.port0_text.size() < kTextKept)
                for (unsigned i = 0; i < width; ++i) stats_.port0_text.push_back(static_cast<char>(value >> (8 * i)));
        }
        return;
    }
    switch (address & ~3u) {
        case kItmLar: locked_ = value != kUnlock; return;
        case kItmTer:
            if (!locked_) ter_ = value;
            return;
        case kItmTcr:
            if (locked_) return;
            tcr_ = value;
            if (itm_on() && !synced_) {  // the stream starts aligned, framed as the TPIU is set then
                trace_id_ = static_cast<std::uint8_t>((tcr_ >> 16) & 0x7F);
                formatted_ = (ffcr_ & ENFCONT) && trace_id_ >= 1 && trace_id_ <= 0x6F;
                stats_.formatter_id = formatted_ ? trace_id_ : 0;
                Encoder(packet_).sync();
                synced_ = send(cycle, false, false);
                stats_.syncs += synced_;
                last_timestamp_ = cycle;
            }
            schedule_periodic(cycle);
            return;
        case kDwtCtrl:  // CYCCNT as it reads now, counting on from here while enabled
            if (dwt_ctrl_ & CYCCNTENA) cyccnt_ += cycle - cyccnt_since_;
            cyccnt_since_ = cycle;
            dwt_ctrl_ = value;
            schedule_periodic(cycle);
            return;
        case kDwtCyccnt:
            cyccnt_ = value;
            cyccnt_since_ = cycle;
            schedule_periodic(cycle);
            return;
        case kTpiuAcpr: acpr_ = value & 0x1FFF; break;
        case kTpiuSppr: sppr_ = value & 3; break;
        case kTpiuFfcr: ffcr_ = value; return;
        default: return;
    }
    configure_ports();
}

void SwoWriter::exception(std::uint64_t cycle, unsigned number, ExceptionFunction function) {
    if (!dwt_on() || !(dwt_ctrl_ & EXCTRCENA)) return;
    Encoder(packet_).exception(number, function);
    stats_.exceptions += send(cycle, true, false);
}

// The DWT's sample (the machine takes it every (POSTPRESET + 1) taps of CYCCNT), as a packet.
void SwoWriter::pc_sample(std::uint64_t cycle, std::uint32_t pc) {
    if (!dwt_on() || !(dwt_ctrl_ & PCSAMPLENA)) return;
    Encoder(packet_).pc_sample(pc);
    stats_.pc_samples += send(cycle, true, false);
}

// A comparator's match, as the packets its function asks for: the pc or the address offset, then
// the data value; the timestamp after the last.
void SwoWriter::data_trace(const trace::Event& e) {
    if (!dwt_on()) return;
    const unsigned n = e.channel & 3u;
    const bool pc = e.channel & trace::kDataTracePc, offset = e.channel & trace::kDataTraceOffset, value = e.channel & trace::kDataTraceValue;
    bool sent = false;
    if (pc) {
        Encoder(packet_).data_pc(n, e.extra);
        sent = send(e.cycle, !offset && !value, false) || sent;
    }
    if (offset) {
        Encoder(packet_).data_offset(n, e.address);
        sent = send(e.cycle, !value, false) || sent;
    }
    if (value) {
        Encoder(packet_).data_value(n, e.channel & trace::kDataTraceWrite, e.width, e.value);
        sent = send(e.cycle, true, false) || sent;
    }
    stats_.data_trace += sent;
}

void SwoWriter::on_batch(const trace::EventBatch& batch) {
    for (const trace::Event& e : batch.events) {
        if (std::min(next_sync_, next_gts_) < e.cycle) [[unlikely]]
            periodic(e.cycle);
        switch (e.kind) {
            case trace::EventKind::PcSample: pc_sample(e.cycle, e.address); break;
            case trace::EventKind::DataTrace: data_trace(e); break;
            case trace::EventKind::MmioWrite: write_register(e.cycle, e.address, e.width, e.value); break;
            case trace::EventKind::ExceptionEntry:
                exception(e.cycle, e.value, ExceptionFunction::Entered);
                if (active_.size() < kMostNested) active_.push_back(e.value);
                break;
            case trace::EventKind::ExceptionReturn:
                exception(e.cycle, e.value, ExceptionFunction::Exited);
                if (!active_.empty()) active_.pop_back();
                exception(e.cycle, active_.empty() ? 0 : active_.back(), ExceptionFunction::Returned);
                break;
            default: break;
        }
    }
}

void SwoWriter::on_end() {
    stats_.port_cycles_per_byte = port_.cycles_per_byte();
    if (!file_) return;
    flush(true);
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!closed) throw ConfigError(path_ + ": cannot write the SWO stream");
}

}  // namespace emutrace::analysis
