#include "config/input_member.h"

#include <algorithm>
#include <system_error>

#include "emutrace/config_error.h"

namespace emutrace::config {

std::filesystem::path input_member(const std::filesystem::path& dir, const std::string& name, const std::string& named_in, const std::string& what) {
    namespace fs = std::filesystem;
    auto refuse = [&](const std::string& why) { throw ConfigError(named_in + ": " + what + " '" + name + "' " + why); };
    const fs::path relative(name);
    if (name.empty()) refuse("is empty");
    if (relative.is_absolute()) refuse("is an absolute path: it must be a file inside " + dir.string());
    for (const auto& part : relative)
        if (part == "..") refuse("leads out of " + dir.string() + " (..)");
    const fs::path path = dir / relative;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) refuse("does not exist in " + dir.string());
    if (!fs::is_regular_file(status)) refuse("is not a regular file (a FIFO, device or folder)");
    // A hard link is the file outside under a name inside, which no path check can see.
    if (fs::hard_link_count(path, ec) != 1 || ec) refuse("has other names (a hard link): it must be the folder's own file");
    std::error_code root_ec;
    const fs::path real = fs::canonical(path, ec), root = fs::canonical(dir, root_ec);
    if (ec || root_ec) refuse("cannot be resolved: " + (ec ? ec : root_ec).message());
    auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (r != root.end()) refuse("is a link leading out of " + dir.string());
    return path;
}

}  // namespace emutrace::config
