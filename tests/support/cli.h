#pragma once
// Runs the emutrace command as a user does, capturing its exit status, stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "support/paths.h"
#include "support/temp_dir.h"

namespace emutrace::test {

struct Cli {
    int status = -1;
    std::string out, err;
};

inline Cli emutrace_cli(const std::string& args) {
    TempDir dir;
    std::string cmd = emutrace_binary() + " " + args + " >" + dir.file("out") + " 2>" + dir.file("err") + " </dev/null";
    int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(dir.file("out")), read_file(dir.file("err"))};
}

/// Runs a shell command (another project's tool: readelf, objcopy, trc_pkt_lister) the same way.
inline Cli run_shell(const std::string& command) {
    TempDir dir;
    std::string cmd = command + " >" + dir.file("out") + " 2>" + dir.file("err") + " </dev/null";
    int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(dir.file("out")), read_file(dir.file("err"))};
}

}  // namespace emutrace::test
