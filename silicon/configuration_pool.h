#pragma once
// Runs a silicon suite's configurations on worker threads, each on a machine of its own, while the
// caller reads the archives; hands back each test, in archive order, once all its configurations
// have run. Results do not depend on the number of workers.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "silicon/silicon_archive.h"
#include "silicon/silicon_suite.h"

namespace emutrace::silicon {

class ConfigurationPool {
public:
    /// Measured bytes (flash images, dumps) held at once, whatever the number of workers: an
    /// archive's members may be 32 MiB each.
    static constexpr std::size_t kMostHeldBytes = 256u << 20;

    /// What runs one configuration; `where` is its archive's path (for errors).
    using Runner = std::function<SiliconConfiguration(const std::string& where, const MeasuredConfiguration&)>;

    using Watch = std::function<void(const SuiteStatus&)>;
    /// How often `watch` hears while the caller waits.
    static constexpr std::chrono::milliseconds kWatchInterval{1000};

    /// `tests` holds every test to run, in order, without configurations; it must outlive the pool.
    /// `watch` (may be empty) is called on the calling thread while add() or finish() waits.
    ConfigurationPool(std::vector<SiliconTest>& tests, unsigned workers, Runner run, std::function<void(const SiliconTest&)> progress,
                      Watch watch = {});
    /// Stops the workers after the configurations they are running, and waits for them.
    ~ConfigurationPool();
    ConfigurationPool(const ConfigurationPool&) = delete;
    ConfigurationPool& operator=(const ConfigurationPool&) = delete;

    /// Queues a configuration of test `test`; waits while the workers are that far behind, or
    /// while the configurations queued and running hold kMostHeldBytes (one is always let in).
    /// Rethrows a worker's exception.
    void add(std::size_t test, const std::string& where, MeasuredConfiguration&& measured);
    /// Every configuration of test `test` has been added.
    void archive_read(std::size_t test);
    /// Waits for every configuration queued; rethrows the first exception a worker met.
    void finish();

private:
    struct Work {
        std::size_t test = 0;
        std::string where;
        MeasuredConfiguration measured;
        std::size_t bytes = 0;
    };
    struct Running {
        std::size_t test = 0;
        std::uint32_t number = 0;
        std::chrono::steady_clock::time_point since;
    };
    void work();
    void report_finished_tests();  // with mutex_ held
    void stop_and_join();
    SuiteStatus status() const;  // with mutex_ held
    // Waits on `ready` until `done`, telling watch_ the status every kWatchInterval meanwhile.
    template <class Done>
    void wait_watching(std::unique_lock<std::mutex>& lock, std::condition_variable& ready, Done done);

    std::vector<SiliconTest>& tests_;
    Runner run_;
    std::function<void(const SiliconTest&)> progress_;
    Watch watch_;
    std::chrono::steady_clock::time_point next_watch_;
    std::size_t most_queued_;

    std::mutex mutex_;
    std::condition_variable work_ready_, room_ready_;
    std::deque<Work> queue_;
    std::size_t held_bytes_ = 0;  // of the configurations queued and running
    std::vector<Running> running_;
    std::size_t configurations_done_ = 0;
    std::vector<std::size_t> added_, ran_;  // per test
    std::vector<bool> read_;                // per test: its archive is read to the end
    std::size_t next_to_report_ = 0;
    bool closed_ = false, stopping_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> workers_;
};

}  // namespace emutrace::silicon
