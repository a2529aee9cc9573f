#include "session/board_files.h"

#include <filesystem>
#include <system_error>

#include "emutrace/config_error.h"

namespace emutrace::session {

decode::svd::Device read_scenario_svd_file(const config::Node& file) {
    namespace fs = std::filesystem;
    const fs::path given = file.str();
    std::vector<fs::path> tried;
    if (given.is_absolute()) {
        tried.push_back(given);
    } else {
        // Beside the scenario; then where the board presets live, for one compiled in.
        tried.push_back(fs::path(file.file()).parent_path() / given);
        tried.push_back(fs::path(EMUTRACE_BOARDS_SOURCE_DIR) / given);
        tried.push_back(fs::path(EMUTRACE_BOARDS_INSTALL_DIR) / given);
    }
    std::error_code ec;
    for (const auto& p : tried)
        if (fs::is_regular_file(p, ec)) {
            try {
                return decode::svd::read_device(p);
            } catch (const ConfigError& e) {
                file.fail(e.what());
            }
        }
    std::string where;
    for (const auto& p : tried) where += (where.empty() ? "" : ", ") + p.string();
    file.fail("no SVD file '" + given.string() + "' (looked at " + where + ")");
}

}  // namespace emutrace::session
