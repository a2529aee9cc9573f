#include "emu/stop_signal.h"

#include <unistd.h>

#include <csignal>

namespace emutrace::emu {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) {
    g_stop_signal = signal;
    static const char kSaid[] = "\nemutrace: stopping: the outputs are being written (again to quit at once)\n";
    [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);  // async-signal-safe, unlike stdio
}

}  // namespace

void catch_stop_signals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    action.sa_flags = SA_RESETHAND;  // the second signal takes its default action
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int stop_signal() {
    return g_stop_signal;
}

}  // namespace emutrace::emu
