#include "silicon/configuration_pool.h"

#include <algorithm>

namespace emutrace::silicon {

ConfigurationPool::ConfigurationPool(std::vector<SiliconTest>& tests, unsigned workers, Runner run, std::function<void(const SiliconTest&)> progress,
                                     Watch watch)
    : tests_(tests), run_(std::move(run)), progress_(std::move(progress)), watch_(std::move(watch)),
      next_watch_(std::chrono::steady_clock::now() + kWatchInterval),
      most_queued_(2 * std::max(workers, 1u)),  // enough that no worker waits on the reader, few flash images held
      added_(tests.size()), ran_(tests.size()), read_(tests.size()) {
    for (unsigned i = 0; i < std::max(workers, 1u); ++i) workers_.emplace_back([this] { work(); });
}

ConfigurationPool::~ConfigurationPool() {
    stop_and_join();
}

void ConfigurationPool::stop_and_join() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    room_ready_.notify_all();
    for (auto& w : workers_)
        if (w.joinable()) w.join();
}

void ConfigurationPool::add(std::size_t test, const std::string& where, MeasuredConfiguration&& measured) {
    std::size_t bytes = measured.flash.size() + measured.name.size();
    for (const auto& r : measured.regions) bytes += r.bytes.size();
    std::unique_lock lock(mutex_);
    wait_watching(lock, room_ready_,
                  [&] { return stopping_ || (queue_.size() < most_queued_ && (held_bytes_ == 0 || held_bytes_ + bytes <= kMostHeldBytes)); });
    if (error_) std::rethrow_exception(error_);
    ++added_[test];
    held_bytes_ += bytes;
    queue_.push_back(Work{test, where, std::move(measured), bytes});
    lock.unlock();
    work_ready_.notify_one();
}

void ConfigurationPool::archive_read(std::size_t test) {
    std::lock_guard lock(mutex_);
    read_[test] = true;
    report_finished_tests();
}

void ConfigurationPool::finish() {
    {
        std::unique_lock lock(mutex_);
        closed_ = true;
        work_ready_.notify_all();
        wait_watching(lock, room_ready_, [&] { return stopping_ || (queue_.empty() && running_.empty()); });
    }
    for (auto& w : workers_) w.join();
    if (error_) std::rethrow_exception(error_);
}

void ConfigurationPool::work() {
    for (;;) {
        Work w;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [&] { return stopping_ || closed_ || !queue_.empty(); });
            if (stopping_ || queue_.empty()) return;
            w = std::move(queue_.front());
            queue_.pop_front();
            running_.push_back(Running{w.test, w.measured.number, std::chrono::steady_clock::now()});
        }
        room_ready_.notify_one();
        try {
            SiliconConfiguration c = run_(w.where, w.measured);
            w.measured = {};  // its flash image and dump go before the next is let in
            {
                std::lock_guard lock(mutex_);
                std::erase_if(running_, [&](const Running& r) { return r.test == w.test && r.number == c.number; });
                ++configurations_done_;
                held_bytes_ -= w.bytes;
                tests_[w.test].configurations.push_back(std::move(c));
                ++ran_[w.test];
                report_finished_tests();
            }
            room_ready_.notify_one();
        } catch (...) {
            {
                std::lock_guard lock(mutex_);
                if (!error_) error_ = std::current_exception();
                stopping_ = true;
            }
            work_ready_.notify_all();
            room_ready_.notify_all();
            return;
        }
    }
}

template <class Done>
void ConfigurationPool::wait_watching(std::unique_lock<std::mutex>& lock, std::condition_variable& ready, Done done) {
    if (!watch_) return ready.wait(lock, done);
    while (!done()) {
        ready.wait_until(lock, next_watch_);
        const auto now = std::chrono::steady_clock::now();
        if (now < next_watch_ || done()) continue;
        next_watch_ = now + kWatchInterval;
        const SuiteStatus s = status();
        lock.unlock();  // the workers go on while it is drawn
        watch_(s);
        lock.lock();
    }
}

SuiteStatus ConfigurationPool::status() const {
    SuiteStatus s;
    s.tests = tests_.size();
    s.tests_done = next_to_report_;
    s.configurations_done = configurations_done_;
    const auto now = std::chrono::steady_clock::now();
    for (const Running& r : running_)
        s.running.push_back({tests_[r.test].category + "/" + tests_[r.test].name, r.number, std::chrono::duration<double>(now - r.since).count()});
    return s;
}

// Tests go to `progress` in archive order, each as soon as it and every test before it are whole.
void ConfigurationPool::report_finished_tests() {
    while (next_to_report_ < tests_.size() && read_[next_to_report_] && ran_[next_to_report_] == added_[next_to_report_]) {
        SiliconTest& t = tests_[next_to_report_++];
        std::sort(t.configurations.begin(), t.configurations.end(), [](const auto& x, const auto& y) { return x.number < y.number; });
        if (progress_) progress_(t);
    }
}

}  // namespace emutrace::silicon
