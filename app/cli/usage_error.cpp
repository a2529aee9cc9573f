#include <cstdio>

#include "app/cli/subcommand.h"

namespace emutrace::app::cli {

int usage_error(const std::string& command, const std::string& what) {
    std::fprintf(stderr, "emutrace: error: %s (see 'emutrace %s --help')\n", what.c_str(), command.c_str());
    return 2;
}

}  // namespace emutrace::app::cli
