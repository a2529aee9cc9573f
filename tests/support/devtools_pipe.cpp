#include "support/devtools_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

namespace emutrace::test {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

bool executable(const std::string& path) {
    return !path.empty() && ::access(path.c_str(), X_OK) == 0 && !fs::is_directory(path);
}

// A copy of `fd` numbered 10 or above (close-on-exec), so that the child's dup2 onto 3 and 4
// can never overwrite one of its own sources.
int high_fd(int fd) {
    int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return copy;
}

int remaining_ms(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

std::string describe_arg(const json& arg) {
    if (arg.contains("value")) return arg["value"].is_string() ? arg["value"].get<std::string>() : arg["value"].dump();
    if (arg.contains("description")) return arg["description"].get<std::string>();
    if (arg.contains("unserializableValue")) return arg["unserializableValue"].get<std::string>();
    return arg.value("type", std::string("?"));
}

std::string where(const json& p) {
    std::string url = p.value("url", std::string());
    if (url.empty()) return "";
    std::string at = " (" + url;
    if (p.contains("lineNumber")) at += ":" + std::to_string(p["lineNumber"].get<long long>() + 1);
    return at + ")";
}

}  // namespace

std::string file_url(const fs::path& file) {
    std::string url = "file://";
    for (unsigned char c : fs::absolute(file).lexically_normal().string()) {
        if (std::isalnum(c) || std::strchr("/-._~", c))
            url += static_cast<char>(c);
        else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            url += hex;
        }
    }
    return url;
}

std::string base64_decode(const std::string& text) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve(text.size() / 4 * 3);
    unsigned buffer = 0;
    int bits = 0;
    for (char c : text) {
        if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
        auto pos = alphabet.find(c);
        if (pos == std::string::npos) throw DevtoolsError("base64: unexpected character");
        buffer = (buffer << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
        }
    }
    return out;
}

std::string DevtoolsBrowser::find_chromium() {
    if (const char* env = std::getenv("EMUTRACE_CHROMIUM"); env && *env) return executable(env) ? env : "";
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
        size_t start = 0;
        while (start <= dirs.size()) {
            size_t end = dirs.find(':', start);
            if (end == std::string::npos) end = dirs.size();
            std::string dir = dirs.substr(start, end - start);
            if (!dir.empty() && executable(dir + "/" + name)) return dir + "/" + name;
            start = end + 1;
        }
    }
    return "";
}

DevtoolsBrowser::DevtoolsBrowser(DevtoolsOptions options) : options_(std::move(options)) {
    if (options_.chromium.empty()) options_.chromium = find_chromium();
    if (options_.chromium.empty()) throw DevtoolsError("no chromium binary found (set EMUTRACE_CHROMIUM or install chromium)");
    try {
        start();
    } catch (...) {
        close();
        throw;
    }
}

DevtoolsBrowser::~DevtoolsBrowser() {
    close();
}

void DevtoolsBrowser::start() {
    std::random_device rd;
    profile_ = fs::temp_directory_path() / ("emutrace-chromium-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(profile_);
    const std::string log = (profile_ / "chromium.log").string();

    // A write to a browser that died must be an error of send(), not the end of this process.
    struct sigaction old {};
    ::sigaction(SIGPIPE, nullptr, &old);
    if (old.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);

    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0) throw DevtoolsError(std::string("pipe: ") + std::strerror(errno));
    if (::pipe2(from, O_CLOEXEC) != 0) {
        ::close(to[0]), ::close(to[1]);
        throw DevtoolsError(std::string("pipe: ") + std::strerror(errno));
    }
    const int child_in = high_fd(to[0]), child_out = high_fd(from[1]);
    to_browser_ = to[1];
    from_browser_ = from[0];
    const int null_fd = high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const int log_fd = high_fd(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));

    std::vector<std::string> args = {options_.chromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--remote-debugging-pipe",
                                     "--user-data-dir=" + (profile_ / "profile").string(),
                                     "--no-first-run",
                                     "--no-default-browser-check",
                                     "--disable-extensions",
                                     "--disable-dev-shm-usage",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--mute-audio",
                                     "--hide-scrollbars",
                                     "--font-render-hinting=none",
                                     "--window-size=" + std::to_string(options_.width) + "," + std::to_string(options_.height)};
    args.insert(args.end(), options_.extra_flags.begin(), options_.extra_flags.end());
    args.push_back("about:blank");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    // The browser's helpers (zygotes, renderers) that outlive a killed browser are orphans: adopted
    // by this process rather than by init, close() reaps them (a container's PID 1 may not). The
    // crash handler detaches into a session of its own and ends by itself when the browser is gone.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls from here to exec.
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        if (::dup2(null_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0 || ::dup2(child_in, 3) < 0 || ::dup2(child_out, 4) < 0)
            ::_exit(127);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    const int fork_errno = errno;
    for (int fd : {child_in, child_out, null_fd, log_fd})
        if (fd >= 0) ::close(fd);
    if (pid < 0) throw DevtoolsError(std::string("fork: ") + std::strerror(fork_errno));
    pid_ = group_ = pid;
    ::setpgid(pid, pid);  // also here: no window in which a kill of the group misses the child
    ::fcntl(to_browser_, F_SETFL, ::fcntl(to_browser_, F_GETFL) | O_NONBLOCK);
    ::fcntl(from_browser_, F_SETFL, ::fcntl(from_browser_, F_GETFL) | O_NONBLOCK);

    // One page of our own, attached in flat mode: its messages carry its sessionId.
    json target = call("Target.createTarget", {{"url", "about:blank"}}, {}, true);
    json attached = call("Target.attachToTarget", {{"targetId", target.at("targetId")}, {"flatten", true}}, {}, true);
    session_ = attached.at("sessionId").get<std::string>();
    call("Page.enable");
    call("Runtime.enable");
    call("Log.enable");
    call("Emulation.setDeviceMetricsOverride", {{"width", options_.width}, {"height", options_.height}, {"deviceScaleFactor", 1}, {"mobile", false}});
}

void DevtoolsBrowser::fail(const std::string& what) {
    std::string log = browser_log();
    if (log.size() > 2000) log = "..." + log.substr(log.size() - 2000);
    close();
    throw DevtoolsError("chromium: " + what + (log.empty() ? std::string() : "\nbrowser output:\n" + log));
}

std::string DevtoolsBrowser::browser_log() const {
    if (profile_.empty()) return "";
    std::ifstream in(profile_ / "chromium.log", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void DevtoolsBrowser::send(const json& message, Clock::time_point deadline) {
    if (pid_ <= 0) throw DevtoolsError("chromium: not running");
    std::string bytes = message.dump();
    bytes.push_back('\0');
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(to_browser_, bytes.data() + done, bytes.size() - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) fail(std::string("writing to the browser: ") + std::strerror(errno));
        // The pipe is full: keep reading the browser's messages meanwhile, so neither side blocks.
        pollfd fds[2] = {{to_browser_, POLLOUT, 0}, {from_browser_, POLLIN, 0}};
        int ready = ::poll(fds, 2, remaining_ms(deadline));
        if (ready == 0 && Clock::now() >= deadline) fail("timed out sending " + message.value("method", std::string()));
        if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP))) pump(Clock::now());
    }
}

bool DevtoolsBrowser::pump(Clock::time_point deadline) {
    pollfd fd = {from_browser_, POLLIN, 0};
    int ready = ::poll(&fd, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) return true;
    if (ready <= 0) return false;
    char buffer[65536];
    for (;;) {
        ssize_t n = ::read(from_browser_, buffer, sizeof buffer);
        if (n > 0) {
            inbox_.append(buffer, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        int status = 0;
        std::string how = "the browser closed its pipe";
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            how += WIFEXITED(status) ? " (exited with status " + std::to_string(WEXITSTATUS(status)) + ")"
                                     : " (killed by signal " + std::to_string(WTERMSIG(status)) + ")";
        }
        fail(how);
    }
    size_t start = 0;
    for (size_t end; (end = inbox_.find('\0', start)) != std::string::npos; start = end + 1) {
        json message =
            json::parse(inbox_.begin() + static_cast<std::ptrdiff_t>(start), inbox_.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
        if (message.is_discarded()) continue;
        if (message.contains("id"))
            responses_.push_back(std::move(message));
        else
            on_event(message);
    }
    inbox_.erase(0, start);
    return true;
}

void DevtoolsBrowser::on_event(const json& message) {
    if (message.value("sessionId", std::string()) != session_ || session_.empty()) return;
    const std::string method = message.value("method", std::string());
    const json& p = message.contains("params") ? message["params"] : json::object();
    if (method == "Page.loadEventFired") {
        loaded_ = true;
        load_time_ = Clock::now();
    } else if (method == "Runtime.consoleAPICalled") {
        const std::string type = p.value("type", std::string());
        if (type != "error" && type != "assert") return;
        std::string text = "console." + type + ":";
        for (const json& arg : p.value("args", json::array())) text += " " + describe_arg(arg);
        errors_.push_back(text);
    } else if (method == "Runtime.exceptionThrown") {
        const json& d = p.contains("exceptionDetails") ? p["exceptionDetails"] : json::object();
        std::string text = d.value("text", std::string("exception"));
        if (d.contains("exception") && d["exception"].contains("description")) text += " " + d["exception"]["description"].get<std::string>();
        errors_.push_back("uncaught exception: " + text + where(d));
    } else if (method == "Log.entryAdded") {
        const json& e = p.contains("entry") ? p["entry"] : json::object();
        if (e.value("level", std::string()) != "error") return;
        errors_.push_back("log (" + e.value("source", std::string("?")) + "): " + e.value("text", std::string()) + where(e));
    }
}

json DevtoolsBrowser::call(const std::string& method, const json& params, std::chrono::milliseconds timeout, bool browser_level) {
    if (pid_ <= 0) throw DevtoolsError("chromium: not running (" + method + ")");
    const auto deadline = Clock::now() + (timeout.count() > 0 ? timeout : options_.timeout);
    const int id = next_id_++;
    json message = {{"id", id}, {"method", method}, {"params", params}};
    if (!browser_level) message["sessionId"] = session_;
    send(message, deadline);
    for (;;) {
        auto it = std::find_if(responses_.begin(), responses_.end(), [&](const json& r) { return r.value("id", -1) == id; });
        if (it != responses_.end()) {
            json response = std::move(*it);
            responses_.erase(it);
            if (response.contains("error"))
                throw DevtoolsError(method + ": " + response["error"].value("message", std::string("error")) + " " +
                                    response["error"].value("data", std::string()));
            return response.value("result", json::object());
        }
        if (!pump(deadline) && Clock::now() >= deadline)
            fail("no answer to " + method + " in " + std::to_string((timeout.count() > 0 ? timeout : options_.timeout).count()) + " ms");
    }
}

json DevtoolsBrowser::evaluate(const std::string& expression) {
    json r = call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
    if (r.contains("exceptionDetails")) {
        const json& d = r["exceptionDetails"];
        std::string text = d.value("text", std::string("exception"));
        if (d.contains("exception") && d["exception"].contains("description")) text += " " + d["exception"]["description"].get<std::string>();
        throw DevtoolsError("evaluate(" + expression.substr(0, 80) + "): " + text);
    }
    return r.contains("result") && r["result"].contains("value") ? r["result"]["value"] : json();
}

double DevtoolsBrowser::open(const std::string& url) {
    errors_.clear();
    loaded_ = false;
    const auto deadline = Clock::now() + options_.timeout;
    const auto start = Clock::now();
    json nav = call("Page.navigate", {{"url", url}});
    if (nav.contains("errorText") && !nav["errorText"].get<std::string>().empty())
        throw DevtoolsError("navigating to " + url + ": " + nav["errorText"].get<std::string>());
    for (;;) {
        while (!loaded_)
            if (!pump(deadline) && Clock::now() >= deadline) fail("no load event for " + url);
        // A late load event of the previous document must not count: this one must be loaded.
        json state = evaluate("[document.readyState, location.href]");
        if (state.is_array() && state[0] == "complete" && state[1] != "about:blank") break;
        loaded_ = false;
    }
    return std::chrono::duration<double>(load_time_ - start).count();
}

std::string DevtoolsBrowser::screenshot_png(bool full_page) {
    json params = {{"format", "png"}};
    bool overridden = false;
    if (full_page) {
        json m = call("Page.getLayoutMetrics");
        const json& size = m.contains("cssContentSize") ? m["cssContentSize"] : m.at("contentSize");
        int height = static_cast<int>(std::ceil(size.at("height").get<double>()));
        height = std::clamp(height, options_.height, 16'384);
        call("Emulation.setDeviceMetricsOverride", {{"width", options_.width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}});
        overridden = true;
        params["captureBeyondViewport"] = true;
    }
    json shot = call("Page.captureScreenshot", params);
    if (overridden)
        call("Emulation.setDeviceMetricsOverride",
             {{"width", options_.width}, {"height", options_.height}, {"deviceScaleFactor", 1}, {"mobile", false}});
    return base64_decode(shot.at("data").get<std::string>());
}

void DevtoolsBrowser::save_screenshot(const fs::path& file, bool full_page) {
    const std::string png = screenshot_png(full_page);
    if (file.has_parent_path()) fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(png.data(), static_cast<std::streamsize>(png.size()));
    if (!out) throw DevtoolsError("cannot write " + file.string());
}

void DevtoolsBrowser::close() {
    if (pid_ > 0) {
        // Ask first (the browser then ends its renderers itself), then make sure.
        if (to_browser_ >= 0) {
            std::string bye = json{{"id", next_id_++}, {"method", "Browser.close"}}.dump();
            bye.push_back('\0');
            [[maybe_unused]] ssize_t n = ::write(to_browser_, bye.data(), bye.size());
        }
        int status = 0;
        bool reaped = false;
        for (int i = 0; i < 100 && !reaped; ++i) {  // up to 2 s
            pid_t r = ::waitpid(pid_, &status, WNOHANG);
            reaped = r == pid_ || (r < 0 && errno == ECHILD);
            if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (!reaped) {
            ::kill(pid_, SIGKILL);
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
        }
        pid_ = -1;
    }
    if (group_ > 0) {
        ::kill(-group_, SIGKILL);  // renderers and helpers left behind
        // Reap the group's processes this one adopted (a helper that left the group is not ours to wait for).
        for (int i = 0; i < 100; ++i) {  // up to 2 s
            int status = 0;
            pid_t r = ::waitpid(-group_, &status, WNOHANG);
            if (r < 0 && errno == ECHILD) break;
            if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        group_ = -1;
    }
    for (int* fd : {&to_browser_, &from_browser_})
        if (*fd >= 0) ::close(*fd), *fd = -1;
    if (!profile_.empty()) {
        std::error_code ec;
        fs::remove_all(profile_, ec);
        profile_.clear();
    }
    session_.clear();
    responses_.clear();
    inbox_.clear();
}

}  // namespace emutrace::test
