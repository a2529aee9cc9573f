#include "silicon/msgpack_json.h"

#include <msgpack.h>

#include <memory>

#include "config/config_error.h"

namespace emutrace::silicon {
namespace {

constexpr int kDeepest = 64;  // the dumps nest a few levels; hostile input must not blow the stack

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
                nlohmann::json key = convert(kv.key, depth + 1, where);
                m[key.is_string() ? key.get<std::string>() : key.dump()] = convert(kv.val, depth + 1, where);
            }
            return m;
        }
        default: return nullptr;  // extension types: the dumps have none that matter
    }
}

}  // namespace

nlohmann::json msgpack_to_json(std::span<const std::uint8_t> bytes, const std::string& where) {
    msgpack_unpacked result;
    msgpack_unpacked_init(&result);
    std::unique_ptr<msgpack_unpacked, decltype(&msgpack_unpacked_destroy)> guard(&result, msgpack_unpacked_destroy);
    std::size_t offset = 0;
    if (msgpack_unpack_next(&result, reinterpret_cast<const char*>(bytes.data()), bytes.size(), &offset) != MSGPACK_UNPACK_SUCCESS)
        throw ConfigError(where + ": not MessagePack (or cut short)");
    return convert(result.data, 0, where);
}

}  // namespace emutrace::silicon
