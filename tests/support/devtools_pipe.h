#pragma once
// A small Chrome DevTools Protocol client for headless Chromium, over --remote-debugging-pipe:
// the browser reads CDP messages (JSON text, each ended by '\0') on its fd 3 and writes its
// answers and events on its fd 4. No websocket, no Node: one child process and two pipes.
//
//   DevtoolsBrowser b;                         // starts chromium (throws DevtoolsError if it cannot)
//   double s = b.open("file:///tmp/r.html");   // navigation to the load event, in seconds
//   json v = b.evaluate("document.title");     // Runtime.evaluate, the value returned by value
//   b.errors();                                // console errors and uncaught exceptions of the page
//   b.save_screenshot("r.png");                // the full page as PNG
//
// Every call has a deadline: a browser that hangs or dies fails the call with DevtoolsError.
// The browser, its process group and its profile directory are gone when the object is.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace emutrace::test {

struct DevtoolsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct DevtoolsOptions {
    std::string chromium;                       // the browser binary; empty: find_chromium()
    int width = 1280, height = 900;             // the viewport, CSS pixels
    std::chrono::milliseconds timeout{30'000};  // default deadline of each call
    std::vector<std::string> extra_flags;
};

class DevtoolsBrowser {
public:
    /// The chromium binary to use: $EMUTRACE_CHROMIUM, else chromium / chromium-browser /
    /// google-chrome on PATH; empty when there is none.
    static std::string find_chromium();

    explicit DevtoolsBrowser(DevtoolsOptions options = {});
    ~DevtoolsBrowser();
    DevtoolsBrowser(const DevtoolsBrowser&) = delete;
    DevtoolsBrowser& operator=(const DevtoolsBrowser&) = delete;

    /// Navigates the page to `url` and waits for its load event; the seconds from sending
    /// Page.navigate to receiving Page.loadEventFired. Clears the errors collected so far.
    double open(const std::string& url);
    /// One CDP command to the page's session (or to the browser with `browser_level`); its result,
    /// or DevtoolsError on a protocol error, a timeout or a dead browser.
    nlohmann::json call(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                        std::chrono::milliseconds timeout = std::chrono::milliseconds{0}, bool browser_level = false);
    /// Runtime.evaluate of a JavaScript expression (promises awaited); its value. A thrown
    /// exception is a DevtoolsError (and is not counted in errors()).
    nlohmann::json evaluate(const std::string& expression);

    /// Console errors (console.error, console.assert), uncaught exceptions and error-level log
    /// entries (failed loads, CSP, ...) since the last open(), each as one line of text.
    const std::vector<std::string>& errors() const { return errors_; }
    /// A PNG of the page: the whole document when `full_page`, else the viewport.
    std::string screenshot_png(bool full_page = true);
    void save_screenshot(const std::filesystem::path& file, bool full_page = true);

    /// The browser's own output (stdout and stderr), for a failure message.
    std::string browser_log() const;
    /// Ends the browser (Browser.close, then SIGKILL to its process group) and reaps it; idempotent.
    void close();

private:
    void start();
    void send(const nlohmann::json& message, std::chrono::steady_clock::time_point deadline);
    /// Reads messages until one arrives or the deadline passes; false at the deadline.
    bool pump(std::chrono::steady_clock::time_point deadline);
    void on_event(const nlohmann::json& message);
    [[noreturn]] void fail(const std::string& what);

    DevtoolsOptions options_;
    std::filesystem::path profile_;
    pid_t pid_ = -1, group_ = -1;  // the browser, and its process group (its renderers)
    int to_browser_ = -1, from_browser_ = -1;
    std::string inbox_;  // bytes read, not yet a whole message
    std::vector<nlohmann::json> responses_;
    int next_id_ = 1;
    std::string session_;
    bool loaded_ = false;
    std::chrono::steady_clock::time_point load_time_{};
    std::vector<std::string> errors_;
};

/// The file:// URL of a local file (made absolute, percent-encoded).
std::string file_url(const std::filesystem::path& file);

/// Standard base64 (RFC 4648) to bytes; whitespace skipped, DevtoolsError on anything else.
std::string base64_decode(const std::string& text);

}  // namespace emutrace::test
