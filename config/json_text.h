#pragma once
// JSON as text for a result: strings from the firmware or its ELF (symbols, thread names, a ring's
// text) need not be UTF-8. Each byte that is not is written as U+FFFD, where nlohmann's default
// dump throws and ends the command.

#include <nlohmann/json.hpp>

#include <string>

namespace emutrace::config {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace emutrace::config
