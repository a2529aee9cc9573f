#include "analysis/calltrace/compact_trace.h"

#include <cstring>

#include "config/text_file.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'U', 'T', 'R', 'A', 'C', 'E'};
constexpr std::uint16_t kVersion = 1;

template <typename T>
void put(std::vector<std::uint8_t>& out, T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}

template <typename T>
T get(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return static_cast<T>(v);
}

std::uint8_t kind_of(CallEvent::Kind k) {
    switch (k) {
        case CallEvent::Kind::Entry: return 0;
        case CallEvent::Kind::Exit: return 1;
        case CallEvent::Kind::Marker: return 2;
        case CallEvent::Kind::ExceptionEntry: return 3;
        case CallEvent::Kind::ExceptionReturn: return 4;
        case CallEvent::Kind::ThreadSwitch:
        case CallEvent::Kind::Resume: break;
    }
    return 0xFF;
}

}  // namespace

CompactTraceWriter::CompactTraceWriter(std::size_t capacity_bytes, std::function<bool(std::uint32_t)> selected)
    : capacity_(std::max<std::size_t>(capacity_bytes / kCompactRecordSize, 1)), selected_(std::move(selected)) {
    ring_.reserve(capacity_);
}

void CompactTraceWriter::on_call_event(const CallEvent& e) {
    std::uint8_t kind = kind_of(e.kind);
    if (kind == 0xFF) return;
    if (kind <= 1 && !selected_(e.function)) return;
    std::array<std::uint8_t, kCompactRecordSize> r{};
    std::uint32_t value = kind == 2 ? e.id : e.function;
    std::uint32_t payload = kind == 2 ? e.payload : kind <= 1 ? e.depth : 0;
    r[0] = kind;
    for (int i = 0; i < 4; ++i) r[1 + i] = static_cast<std::uint8_t>(value >> (8 * i));
    for (int i = 0; i < 2; ++i) r[5 + i] = static_cast<std::uint8_t>(e.thread >> (8 * i));
    for (int i = 0; i < 8; ++i) r[7 + i] = static_cast<std::uint8_t>(e.cycle >> (8 * i));
    for (int i = 0; i < 4; ++i) r[15 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
    if (ring_.size() < capacity_)
        ring_.push_back(r);
    else
        ring_[next_] = r;
    next_ = (next_ + 1) % capacity_;
    ++seen_;
}

void CompactTraceWriter::write(const std::string& path, std::uint64_t clock_hz, const std::vector<std::string>& threads) const {
    std::vector<std::uint8_t> out(kMagic, kMagic + 8);
    put<std::uint16_t>(out, kVersion);
    put<std::uint16_t>(out, kCompactRecordSize);
    put<std::uint64_t>(out, clock_hz);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(capacity_));
    put<std::uint32_t>(out, static_cast<std::uint32_t>(ring_.size()));
    put<std::uint64_t>(out, seen_);
    std::size_t first = ring_.size() < capacity_ ? 0 : next_;  // oldest record
    std::uint32_t kept = 0;
    for (std::size_t i = 0; i < ring_.size(); ++i) {
        const auto& r = ring_[(first + i) % ring_.size()];
        // Selection is applied again here: an automatic selection is only decided after the run.
        if (r[0] <= 1 && !selected_(get<std::uint32_t>(&r[1]))) continue;
        out.insert(out.end(), r.begin(), r.end());
        ++kept;
    }
    for (int k = 0; k < 4; ++k) out[24 + k] = static_cast<std::uint8_t>(kept >> (8 * k));
    put<std::uint16_t>(out, static_cast<std::uint16_t>(threads.size()));
    for (const auto& t : threads) {
        put<std::uint16_t>(out, static_cast<std::uint16_t>(t.size()));
        out.insert(out.end(), t.begin(), t.end());
    }
    config::write_binary_file(path, out, "compact trace");
}

CompactTrace read_compact_trace(const std::string& path) {
    const std::vector<std::uint8_t> b = config::read_binary_file(path, "compact trace");
    auto fail = [&](std::size_t at, const std::string& what) { throw ConfigError(path + ": byte " + std::to_string(at) + ": " + what); };
    constexpr std::size_t kHeader = 8 + 2 + 2 + 8 + 4 + 4 + 8;
    if (b.size() < kHeader || std::memcmp(b.data(), kMagic, 8) != 0) fail(0, "not an emutrace compact trace (no EMUTRACE header)");
    if (get<std::uint16_t>(&b[8]) != kVersion) fail(8, "unsupported version " + std::to_string(get<std::uint16_t>(&b[8])));
    if (get<std::uint16_t>(&b[10]) != kCompactRecordSize) fail(10, "record size is not 21");
    CompactTrace t;
    t.clock_hz = get<std::uint64_t>(&b[12]);
    t.capacity = get<std::uint32_t>(&b[20]);
    std::uint32_t count = get<std::uint32_t>(&b[24]);
    t.seen = get<std::uint64_t>(&b[28]);
    if (t.clock_hz == 0) fail(12, "clock of 0 Hz");
    if (count > t.capacity || b.size() < kHeader + static_cast<std::size_t>(count) * kCompactRecordSize)
        fail(24, std::to_string(count) + " records do not fit the file (truncated?)");
    std::size_t at = kHeader;
    for (std::uint32_t i = 0; i < count; ++i, at += kCompactRecordSize) {
        CompactRecord r;
        r.kind = b[at];
        if (r.kind > 4) fail(at, "unknown record kind " + std::to_string(r.kind));
        r.value = get<std::uint32_t>(&b[at + 1]);
        r.thread = get<std::uint16_t>(&b[at + 5]);
        r.cycle = get<std::uint64_t>(&b[at + 7]);
        r.payload = get<std::uint32_t>(&b[at + 15]);
        t.records.push_back(r);
    }
    if (at + 2 > b.size()) fail(at, "the thread-name table is missing (truncated?)");
    std::uint16_t names = get<std::uint16_t>(&b[at]);
    at += 2;
    for (std::uint16_t i = 0; i < names; ++i) {
        if (at + 2 > b.size()) fail(at, "truncated thread name");
        std::uint16_t len = get<std::uint16_t>(&b[at]);
        at += 2;
        if (at + len > b.size()) fail(at, "truncated thread name");
        t.threads.emplace_back(reinterpret_cast<const char*>(&b[at]), len);
        at += len;
    }
    return t;
}

}  // namespace emutrace::analysis
