#pragma once
// MessagePack to JSON for the silicon dumps. nlohmann's own reader refuses maps with integer keys,
// which the dumps' trace records have; msgpack-c reads everything and keys become strings.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace emutrace::silicon {

/// Throws ConfigError naming `where` when the bytes are not one MessagePack value.
nlohmann::json msgpack_to_json(std::span<const std::uint8_t> bytes, const std::string& where);

}  // namespace emutrace::silicon
