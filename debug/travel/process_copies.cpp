#include "debug/travel/process_copies.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "emutrace/config_error.h"

namespace emutrace::debug::travel {

namespace {

bool write_all(int fd, const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n, size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool read_all(int fd, void* data, std::size_t size) {
    auto* p = static_cast<char*>(data);
    while (size) {
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n, size -= static_cast<std::size_t>(n);
    }
    return true;
}

volatile sig_atomic_t g_supervisor_told_to_stop = 0;  // a signal handler's flag: the supervisor's only state outside it

void supervisor_stop(int) {
    g_supervisor_told_to_stop = 1;
}

// The supervisor: waits for the running process to end, following which one that is from what
// the processes announce ("active PID", "copy PID", "gone PID"), then ends the copies and exits
// with the running one's status. SIGINT reaches every process of the group; the running one
// handles it. SIGTERM or SIGHUP to the supervisor ends them all.
[[noreturn]] void supervise_until_the_end(int news, pid_t first) {
    ::signal(SIGINT, SIG_IGN);
    struct sigaction stop {};
    stop.sa_handler = supervisor_stop;
    ::sigaction(SIGTERM, &stop, nullptr);
    ::sigaction(SIGHUP, &stop, nullptr);
    ::fcntl(news, F_SETFL, O_NONBLOCK);
    pid_t active = first;
    std::set<pid_t> copies, gone;
    std::string pending;
    auto read_news = [&] {
        char buffer[512];
        for (ssize_t n; (n = ::read(news, buffer, sizeof buffer)) > 0;) pending.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos; pending.erase(0, eol + 1)) {
            std::istringstream line(pending.substr(0, eol));
            std::string what;
            pid_t pid = 0;
            line >> what >> pid;
            if (what == "active") active = pid;
            if (what == "copy") copies.insert(pid);
            if (what == "gone") gone.insert(pid);
        }
    };
    int status = 1;
    for (;;) {
        int st = 0;
        const pid_t pid = ::waitpid(-1, &st, 0);
        read_news();
        if (pid < 0) {
            if (errno == EINTR && !g_supervisor_told_to_stop) continue;
            status = g_supervisor_told_to_stop ? 128 + SIGTERM : 1;
            break;
        }
        if (pid == active && !gone.count(pid)) {
            status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
    }
    for (pid_t pid : copies) ::kill(pid, SIGKILL);
    if (g_supervisor_told_to_stop) ::kill(active, SIGKILL);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
    std::fflush(nullptr);
    ::_exit(status);  // not exit(): the objects this process copied belong to the runs it supervised
}

}  // namespace

std::string ProcessCopies::unavailable() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("Threads:", 0) != 0) continue;
        if (std::stoi(line.substr(8)) > 1)
            return "the run has more than one thread (an analysis that writes on a thread of its own, such as --pft or --wcet), "
                   "and a copy of the process would hold only one";
        return {};
    }
    return "the process's threads cannot be counted (/proc/self/status)";
}

void ProcessCopies::supervise() {
    int news[2], life[2];
    if (::pipe2(news, O_CLOEXEC) != 0) throw ConfigError(std::string("reverse execution: no pipe: ") + std::strerror(errno));
    if (::pipe2(life, O_CLOEXEC) != 0) throw ConfigError(std::string("reverse execution: no pipe: ") + std::strerror(errno));
    // Copies brought back are orphans (double fork): they become the supervisor's children.
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) throw ConfigError(std::string("reverse execution: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t worker = ::fork();
    if (worker < 0) throw ConfigError(std::string("reverse execution: fork: ") + std::strerror(errno));
    if (worker > 0) {
        ::close(news[1]);
        ::close(life[0]);
        supervise_until_the_end(news[0], worker);  // life[1] stays open until the supervisor exits
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    ::close(news[0]);
    ::close(life[1]);
    supervisor_news_ = news[1];
    lifeline_ = life[0];
    announce("active");
}

void ProcessCopies::announce(const char* what) const {
    char line[48];
    const int n = std::snprintf(line, sizeof line, "%s %d\n", what, static_cast<int>(::getpid()));
    if (supervisor_news_ >= 0) write_all(supervisor_news_, line, static_cast<std::size_t>(n));  // one write, under PIPE_BUF: whole
}

std::optional<std::string> ProcessCopies::keep(std::uint64_t position) {
    if (supervisor_news_ < 0) return std::nullopt;
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC) != 0) return std::nullopt;  // no copy this time: the one before serves
    std::fflush(nullptr);                                    // text already printed is not printed again by the copy
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(wake[0]);
        ::close(wake[1]);
        return std::nullopt;
    }
    if (pid == 0) return wait_as_copy(position, wake[0], wake[1]);
    ::close(wake[0]);
    copies_.push_back({position, pid, wake[1]});
    return std::nullopt;
}

std::string ProcessCopies::wait_as_copy(std::uint64_t position, int wake_read, int wake_write) {
    const pid_t self = ::getpid();
    announce("copy");
    struct sigaction ignore {
    }, old_int{}, old_term{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &old_int);  // the running process answers Ctrl-C, not the copies
    ::sigaction(SIGTERM, &ignore, &old_term);
    for (;;) {
        pollfd fds[2] = {{wake_read, POLLIN, 0}, {lifeline_, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            ::_exit(0);
        }
        if (fds[1].revents) ::_exit(0);  // the supervisor has gone: the run is over
        std::uint32_t size = 0;
        std::string message;
        if (!read_all(wake_read, &size, sizeof size) || size > (1u << 20)) ::_exit(0);
        message.resize(size);
        if (!read_all(wake_read, message.data(), size)) ::_exit(0);
        std::fflush(nullptr);
        const pid_t middle = ::fork();
        if (middle == 0) {
            if (::fork() != 0) ::_exit(0);  // the middle one goes: the process that runs on is the supervisor's
            ::sigaction(SIGINT, &old_int, nullptr);
            ::sigaction(SIGTERM, &old_term, nullptr);
            ::close(wake_read);
            copies_.push_back({position, self, wake_write});  // this copy stays, to be brought back again
            announce("active");
            return message;
        }
        if (middle > 0) ::waitpid(middle, nullptr, 0);
    }
}

std::optional<std::uint64_t> ProcessCopies::kept_before(std::uint64_t position) const {
    std::optional<std::uint64_t> at;
    for (const auto& c : copies_)
        if (c.position <= position) at = c.position;
    return at;
}

std::optional<std::uint64_t> ProcessCopies::kept_strictly_before(std::uint64_t position) const {
    return position ? kept_before(position - 1) : std::nullopt;
}

void ProcessCopies::bring_back(std::uint64_t kept, const std::string& message) {
    auto it = std::find_if(copies_.begin(), copies_.end(), [&](const Copy& c) { return c.position == kept; });
    if (it == copies_.end()) ::_exit(70);  // a caller's error: positions come from kept_before()
    // Copies after it belong to the future being undone; the run kept again passes their positions.
    for (auto later = it + 1; later != copies_.end(); ++later) {
        ::kill(later->pid, SIGKILL);
        ::close(later->wake);
    }
    const auto size = static_cast<std::uint32_t>(message.size());
    std::fflush(nullptr);
    if (!write_all(it->wake, &size, sizeof size) || !write_all(it->wake, message.data(), message.size())) ::_exit(70);
    announce("gone");
    ::_exit(0);
}

bool ProcessCopies::orphaned() const {
    if (lifeline_ < 0) return false;
    pollfd fd{lifeline_, POLLIN, 0};
    return ::poll(&fd, 1, 0) > 0 && fd.revents;
}

}  // namespace emutrace::debug::travel
