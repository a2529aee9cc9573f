#include "silicon/msgpack_json.h"

#include <msgpack.h>

#include <memory>

#include "config/json_text.h"
#include "emutrace/config_error.h"

namespace emutrace::silicon {
namespace {

constexpr int kDeepest = 64;  // the dumps nest a few levels; hostile input must not blow the stack

nlohmann::json convert(const msgpack_object& o, int depth, const std::string& where);

// A map key as JSON keys are: strings as they are, other scalars as their JSON text. The dumps key
// some maps by number, written here directly rather than one by one through the JSON serializer.
// A list or a map as a key is refused: no dump has one, and written as text inside a key written
// as text, each level escaping the one below, a few levels of them took gigabytes
// (silicon_archive_fuzz; tests/data/fuzz/silicon-msgpack-nested-keys.tzst).
std::string key_text(const msgpack_object& key, int depth, const std::string& where) {
    switch (key.type) {
        case MSGPACK_OBJECT_STR: return std::string(key.via.str.ptr, key.via.str.size);
        case MSGPACK_OBJECT_POSITIVE_INTEGER: return std::to_string(key.via.u64);
        case MSGPACK_OBJECT_NEGATIVE_INTEGER: return std::to_string(key.via.i64);
        case MSGPACK_OBJECT_ARRAY:
        case MSGPACK_OBJECT_MAP:
            throw ConfigError(where + ": a MessagePack map key is a " + (key.type == MSGPACK_OBJECT_MAP ? "map" : "list") +
                              ", not a string or a number");
        default: return config::json_text(convert(key, depth, where));
    }
}

nlohmann::json convert(const msgpack_object& o, int depth, const std::string& where) {
    if (depth > kDeepest) throw ConfigError(where + ": MessagePack nested deeper than " + std::to_string(kDeepest) + " levels");
    switch (o.type) {
        case MSGPACK_OBJECT_NIL: return nullptr;
        case MSGPACK_OBJECT_BOOLEAN: return o.via.boolean;
        case MSGPACK_OBJECT_POSITIVE_INTEGER: return o.via.u64;
        case MSGPACK_OBJECT_NEGATIVE_INTEGER: return o.via.i64;
        case MSGPACK_OBJECT_FLOAT32:
        case MSGPACK_OBJECT_FLOAT64: return o.via.f64;
        case MSGPACK_OBJECT_STR: return std::string(o.via.str.ptr, o.via.str.size);
        case MSGPACK_OBJECT_BIN: return nlohmann::json::binary({o.via.bin.ptr, o.via.bin.ptr + o.via.bin.size});
        case MSGPACK_OBJECT_ARRAY: {
            nlohmann::json a = nlohmann::json::array();
            for (std::uint32_t i = 0; i < o.via.array.size; ++i) a.push_back(convert(o.via.array.ptr[i], depth + 1, where));
            return a;
        }
        case MSGPACK_OBJECT_MAP: {
            nlohmann::json m = nlohmann::json::object();
            for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
                const msgpack_object_kv& kv = o.via.map.ptr[i];
                m[key_text(kv.key, depth + 1, where)] = convert(kv.val, depth + 1, where);
            }
            return m;
        }
        default: return nullptr;  // extension types: the dumps have none that matter
    }
}

// Whether every length the first object declares (a string's bytes, an array's or a map's
// elements) fits in the bytes that follow, checked before libmsgpack allocates for it: a header
// claiming 2^32 elements would otherwise take gigabytes. Every element takes at least one byte.
// Long on purpose: one case per msgpack type byte, as the format's specification lists them.
bool lengths_fit(std::span<const std::uint8_t> b) {
    std::size_t at = 0;
    std::uint64_t expected = 1;  // elements still to read
    auto left = [&] { return static_cast<std::uint64_t>(b.size() - at); };
    auto read = [&](unsigned n, std::uint64_t& v) {
        if (left() < n) return false;
        v = 0;
        for (unsigned i = 0; i < n; ++i) v = v << 8 | b[at++];
        return true;
    };
    while (expected) {
        if (!left()) return false;
        --expected;
        const std::uint8_t h = b[at++];
        std::uint64_t n = 0, payload = 0, children = 0;
        if (h <= 0x7F || h >= 0xE0 || h == 0xC0 || h == 0xC2 || h == 0xC3) {  // fixint, nil, bool
        } else if (h >= 0x80 && h <= 0x8F) {
            children = 2u * (h & 0x0Fu);
        } else if (h >= 0x90 && h <= 0x9F) {
            children = h & 0x0Fu;
        } else if (h >= 0xA0 && h <= 0xBF) {
            payload = h & 0x1Fu;
        } else {
            switch (h) {
                case 0xC4:
                case 0xD9:
                    if (!read(1, payload)) return false;
                    break;  // bin8, str8
                case 0xC5:
                case 0xDA:
                    if (!read(2, payload)) return false;
                    break;  // bin16, str16
                case 0xC6:
                case 0xDB:
                    if (!read(4, payload)) return false;
                    break;  // bin32, str32
                case 0xC7:
                    if (!read(1, payload)) return false;
                    ++payload;
                    break;  // ext8: type byte too
                case 0xC8:
                    if (!read(2, payload)) return false;
                    ++payload;
                    break;
                case 0xC9:
                    if (!read(4, payload)) return false;
                    ++payload;
                    break;
                case 0xCA:
                case 0xCE:
                case 0xD2: payload = 4; break;  // float32, (u)int32
                case 0xCB:
                case 0xCF:
                case 0xD3: payload = 8; break;  // float64, (u)int64
                case 0xCC:
                case 0xD0: payload = 1; break;
                case 0xCD:
                case 0xD1: payload = 2; break;
                case 0xD4: payload = 2; break;  // fixext 1..16: a type byte and the data
                case 0xD5: payload = 3; break;
                case 0xD6: payload = 5; break;
                case 0xD7: payload = 9; break;
                case 0xD8: payload = 17; break;
                case 0xDC:
                    if (!read(2, n)) return false;
                    children = n;
                    break;  // array16
                case 0xDD:
                    if (!read(4, n)) return false;
                    children = n;
                    break;  // array32
                case 0xDE:
                    if (!read(2, n)) return false;
                    children = 2 * n;
                    break;  // map16
                case 0xDF:
                    if (!read(4, n)) return false;
                    children = 2 * n;
                    break;              // map32
                default: return false;  // 0xC1: never used
            }
        }
        if (payload > left()) return false;
        at += payload;
        expected += children;
        if (expected > left()) return false;
    }
    return true;
}

}  // namespace

nlohmann::json msgpack_to_json(std::span<const std::uint8_t> bytes, const std::string& where) {
    msgpack_unpacked result;
    msgpack_unpacked_init(&result);
    std::unique_ptr<msgpack_unpacked, decltype(&msgpack_unpacked_destroy)> guard(&result, msgpack_unpacked_destroy);
    std::size_t offset = 0;
    if (!lengths_fit(bytes)) throw ConfigError(where + ": not MessagePack, cut short, or declaring more elements than it holds");
    if (msgpack_unpack_next(&result, reinterpret_cast<const char*>(bytes.data()), bytes.size(), &offset) != MSGPACK_UNPACK_SUCCESS)
        throw ConfigError(where + ": not MessagePack (or cut short)");
    return convert(result.data, 0, where);
}

}  // namespace emutrace::silicon
