#pragma once
#include <stdexcept>
#include <string>

namespace emutrace {

/// A problem with the user's input (scenario, ELF, flags), found before or while loading.
/// The message is one line and names the file, line or address at fault.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace emutrace
