#include "analysis/replay/event_log.h"

#include <cstring>

#include "config/little_endian.h"
#include "config/text_file.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::replay {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'U', 'T', 'R', 'L', 'O', 'G'};
constexpr std::uint16_t kVersion = 2;

void put16(std::vector<std::uint8_t>& b, std::uint16_t v) {
    b.push_back(static_cast<std::uint8_t>(v)), b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
using config::read_le16;
using config::read_le32;

}  // namespace

const char* operation_name(Operation op) {
    switch (op) {
        case Operation::Lock: return "lock";
        case Operation::Unlock: return "unlock";
        case Operation::Send: return "send";
        case Operation::Receive: return "receive";
        case Operation::Create: return "create";
        case Operation::Delete: return "delete";
        case Operation::Delay: return "delay";
        case Operation::Yield: return "yield";
        case Operation::Input: return "input";
        case Operation::Interrupt: return "interrupt";
    }
    return "?";
}

std::uint32_t timing_fingerprint(const std::string& cpu, std::uint64_t clock_hz, const std::string& timing) {
    std::uint32_t h = 2166136261u;  // FNV-1a: stable across builds and hosts, unlike std::hash
    for (char c : cpu + "/" + std::to_string(clock_hz) + "/" + timing) h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
    return h ? h : 1;
}

void encode_header(std::vector<std::uint8_t>& b, std::uint32_t records, std::uint16_t flags, std::uint32_t lost, std::uint32_t timing) {
    const std::size_t start = b.size();
    b.insert(b.end(), kMagic, kMagic + 8);
    put16(b, kVersion);
    put16(b, kLogHeaderBytes);
    put16(b, kLogRecordBytes);
    put16(b, flags);
    put32(b, records);
    put32(b, lost);
    put32(b, timing);
    b.resize(start + kLogHeaderBytes, 0);
}

void encode_record(std::vector<std::uint8_t>& b, const LogEvent& e) {
    put32(b, e.seq);
    put32(b, e.before);
    put32(b, e.thread);
    b.push_back(static_cast<std::uint8_t>(e.op));
    b.push_back(e.flags);
    put16(b, 0);
    put32(b, e.object);
    put32(b, e.value);
    put32(b, static_cast<std::uint32_t>(e.cycle));
    put32(b, static_cast<std::uint32_t>(e.cycle >> 32));
}

std::vector<std::uint8_t> EventLog::encode() const {
    std::vector<std::uint8_t> b;
    encode_header(b, static_cast<std::uint32_t>(events.size()), flags, lost, timing);
    for (const LogEvent& e : events) encode_record(b, e);
    return b;
}

EventLog EventLog::decode(const std::vector<std::uint8_t>& bytes, const std::string& name) {
    auto fail = [&](std::size_t at, const std::string& what) { throw ConfigError(name + ": byte " + std::to_string(at) + ": " + what); };
    if (bytes.size() < kLogHeaderBytes) fail(bytes.size(), "truncated header (" + std::to_string(bytes.size()) + " of 32 bytes): not an event log");
    if (std::memcmp(bytes.data(), kMagic, 8) != 0) fail(0, "not an emutrace event log (no EMUTRLOG magic)");
    const std::uint8_t* h = bytes.data();
    if (read_le16(h + 8) != kVersion) fail(8, "log version " + std::to_string(read_le16(h + 8)) + ", this emutrace reads version 2");
    const std::uint16_t header = read_le16(h + 10), record = read_le16(h + 12);
    if (header < kLogHeaderBytes || header > bytes.size()) fail(10, "header size " + std::to_string(header) + " is impossible");
    if (record < kLogRecordBytes) fail(12, "record size " + std::to_string(record) + " is below 32");
    const std::uint32_t count = read_le32(h + 16);
    EventLog log;
    log.flags = read_le16(h + 14);
    log.lost = read_le32(h + 20);
    log.timing = read_le32(h + 24);
    const std::size_t need = header + static_cast<std::size_t>(count) * record;
    if (bytes.size() < need)
        fail(bytes.size(), "truncated: the header announces " + std::to_string(count) + " records, the file holds " +
                               std::to_string((bytes.size() - header) / record));
    log.events.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::size_t at = header + static_cast<std::size_t>(i) * record;
        const std::uint8_t* p = bytes.data() + at;
        LogEvent e;
        e.seq = read_le32(p);
        e.before = read_le32(p + 4);
        e.thread = read_le32(p + 8);
        e.op = static_cast<Operation>(p[12]);
        e.flags = p[13];
        e.object = read_le32(p + 16);
        e.value = read_le32(p + 20);
        e.cycle = read_le32(p + 24) | static_cast<std::uint64_t>(read_le32(p + 28)) << 32;
        const std::uint32_t previous = log.events.empty() ? 0 : log.events.back().seq;
        if (e.seq <= previous) fail(at, "record " + std::to_string(i) + " has seq " + std::to_string(e.seq) + " after " + std::to_string(previous));
        // A linked log numbers its events 1, 2, 3, ...: replay and the race detector find an event
        // by its number. Only a firmware-side recorder's unlinked log may skip (events it lost).
        if (!(log.flags & kUnlinked) && e.seq != i + 1)
            fail(at, "record " + std::to_string(i) + " has seq " + std::to_string(e.seq) + ", not " + std::to_string(i + 1) +
                         ": a linked log numbers its events without gaps");
        if (e.before >= e.seq)
            fail(at + 4, "record " + std::to_string(i) + " (seq " + std::to_string(e.seq) + ") happens after " + std::to_string(e.before));
        if (std::string(operation_name(e.op)) == "?")
            fail(at + 12, "record " + std::to_string(i) + " has unknown operation " + std::to_string(p[12]));
        log.events.push_back(e);
    }
    return log;
}

EventLog EventLog::load(const std::string& path) {
    return decode(config::read_binary_file(path, "event log"), path);
}

void EventLog::save(const std::string& path) const {
    config::write_binary_file(path, encode(), "event log");
}

}  // namespace emutrace::analysis::replay
