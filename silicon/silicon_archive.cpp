#include "silicon/silicon_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "config/json_text.h"
#include "emutrace/config_error.h"
#include "silicon/msgpack_json.h"

namespace emutrace::silicon {
namespace {

std::string archive_error(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "unknown error";
}

struct Members {
    std::vector<std::uint8_t> flash, dump;
};

// Sizes an archive's members may claim: a flash image or a dump of a few MiB at most, so that a
// hostile archive (members of zeros that compress to nothing) cannot take the host's memory.
constexpr la_int64_t kMostMemberBytes = 32 << 20;
constexpr std::size_t kMostPendingBytes = 64 << 20;  ///< members read whose other half has not come yet
constexpr std::uint32_t kMostCodeBytes = 4096;       ///< a measured sequence longer than this is not shown

std::uint32_t address_field(const nlohmann::json& dump, const char* key, const std::string& where) {
    auto it = dump.find(key);
    if (it == dump.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 0xFFFFFFFFu)
        throw ConfigError(where + ": '" + key + "' is missing or not an address");
    return it->get<std::uint32_t>();
}

// The measured instruction sequence, from the dump's symbols; where the test copies it to SRAM, the
// copy is what runs.
void code_range(const nlohmann::json& dump, MeasuredConfiguration& c) {
    auto symbols = dump.find("symbols");
    if (symbols == dump.end() || !symbols->is_object()) return;
    auto at = [&](const char* name) -> std::uint32_t {
        auto it = symbols->find(name);
        return it != symbols->end() && it->is_number_unsigned() && it->get<std::uint64_t>() <= 0xFFFFFFFFu ? it->get<std::uint32_t>() : 0;
    };
    std::uint32_t from = at("benchmarkCode"), to = at("end_label");
    if (!from || to <= from || to - from > kMostCodeBytes) return;
    if (c.name.find("'code': 'sram'") != std::string::npos && at("tested_code")) {
        std::uint32_t length = to - from;
        from = at("tested_code");
        if (from > 0xFFFFFFFFu - length) return;
        to = from + length;
    }
    c.code_from = from & ~1u;
    c.code_to = to;
}

// A region's bytes: MessagePack binary, or a list of numbers each 0-255 (a float or a wider number
// would be cut to a byte silently, and a float out of range is undefined behaviour in the cast).
std::vector<std::uint8_t> content_bytes(const nlohmann::json& content, const std::string& where) {
    if (content.is_binary()) return content.get_binary();
    std::vector<std::uint8_t> bytes;
    bytes.reserve(content.size());
    for (const nlohmann::json& b : content) {
        if (!b.is_number_unsigned() || b.get<std::uint64_t>() > 0xFF)
            throw ConfigError(where + ": 'content' item " + std::to_string(bytes.size()) + " is " + config::json_text(b).substr(0, 40) +
                              ", not a byte");
        bytes.push_back(b.get<std::uint8_t>());
    }
    return bytes;
}

MeasuredConfiguration parse_configuration(const std::string& where, std::uint32_t number, Members&& members) {
    std::string file = where + ":" + std::to_string(number);
    if (members.flash.empty() || members.dump.empty()) throw ConfigError(file + ": needs both " + std::to_string(number) + ".flash and .dump");
    MeasuredConfiguration c;
    c.number = number;
    c.flash = std::move(members.flash);
    try {
        nlohmann::json dump = msgpack_to_json(members.dump, file + ".dump");
        if (!dump.is_object()) throw ConfigError(file + ".dump: not a MessagePack map");
        auto name = dump.find("configuration_name");
        if (name != dump.end() && name->is_string()) c.name = name->get<std::string>();
        c.main = address_field(dump, "emulator_main_addr", file);
        c.exit = address_field(dump, "emulator_exit_addr", file);
        auto regions = dump.find("mem_dump");
        if (regions != dump.end() && !regions->is_array()) throw ConfigError(file + ".dump: 'mem_dump' is not a list");
        if (regions != dump.end()) {
            for (const auto& region : *regions) {
                if (!region.is_object()) throw ConfigError(file + ".dump: a 'mem_dump' entry is not a map");
                MeasuredRegion& r = c.regions.emplace_back();
                auto symbol = region.find("symbol_name");
                r.name = symbol != region.end() && symbol->is_string() ? symbol->get<std::string>() : "?";
                r.address = address_field(region, "addr", file + " mem_dump " + r.name);
                auto content = region.find("content");
                if (content == region.end() || !(content->is_binary() || content->is_array()))
                    throw ConfigError(file + " mem_dump " + r.name + ": 'content' is missing or not bytes");
                r.bytes = content_bytes(*content, file + " mem_dump " + r.name);
            }
        }
        code_range(dump, c);
    } catch (const nlohmann::json::exception& e) {
        throw ConfigError(file + ".dump: malformed (" + e.what() + ")");
    }
    return c;
}

// A member's name as an error line shows it: the archive's author chose it, newlines and all.
std::string shown_name(std::string name) {
    if (name.size() > 80) name = name.substr(0, 80) + "...";
    for (char& ch : name)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
    return name;
}

}  // namespace

void read_silicon_archive(const std::string& path, const std::function<void(MeasuredConfiguration&&)>& each) {
    std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throw ConfigError(path + ": cannot read the archive (" + archive_error(a.get()) + ")");
    std::map<std::uint32_t, Members> pending;
    std::size_t pending_bytes = 0, configurations = 0;
    archive_entry* e = nullptr;
    for (;;) {
        int rc = archive_read_next_header(a.get(), &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc != ARCHIVE_OK) throw ConfigError(path + ": corrupt archive (" + archive_error(a.get()) + ")");
        std::filesystem::path member(archive_entry_pathname(e));
        std::string stem = member.stem().string(), ext = member.extension().string();
        if (ext != ".flash" && ext != ".dump") continue;  // a README, a folder: not a measurement
        bool numbered = !stem.empty() && stem.size() <= 6 && std::all_of(stem.begin(), stem.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!numbered)
            throw ConfigError(path + ": member '" + shown_name(member.string()) + "': expected N" + ext +
                              ", N a configuration number of at most 6 digits");
        la_int64_t size = archive_entry_size(e);
        if (size < 0 || size > kMostMemberBytes)
            throw ConfigError(path + ": " + member.string() + " claims " + std::to_string(size) + " bytes (at most " +
                              std::to_string(kMostMemberBytes >> 20) + " MiB)");
        if (pending_bytes + static_cast<std::size_t>(size) > kMostPendingBytes)
            throw ConfigError(path + ": more than " + std::to_string(kMostPendingBytes >> 20) +
                              " MiB of members without their other half (N.flash and N.dump belong together)");
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
        if (size && archive_read_data(a.get(), bytes.data(), bytes.size()) != size)
            throw ConfigError(path + ": " + member.string() + " is cut short");
        auto number = static_cast<std::uint32_t>(std::stoul(stem));
        Members& members = pending[number];
        std::vector<std::uint8_t>& half = ext == ".flash" ? members.flash : members.dump;
        if (!half.empty()) throw ConfigError(path + ": " + member.string() + " appears twice");
        pending_bytes += bytes.size();
        half = std::move(bytes);
        if (members.flash.empty() || members.dump.empty()) continue;
        pending_bytes -= members.flash.size() + members.dump.size();
        Members whole = std::move(members);
        pending.erase(number);
        each(parse_configuration(path, number, std::move(whole)));
        ++configurations;
    }
    for (auto& [number, members] : pending) each(parse_configuration(path, number, std::move(members)));  // says which half is missing
    if (!configurations) throw ConfigError(path + ": no N.flash and N.dump members: the archive holds no measured configuration");
}

}  // namespace emutrace::silicon
