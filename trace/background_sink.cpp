#include "trace/background_sink.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace emutrace::trace {

namespace {
// How often an idle worker looks for chunks: well below the time the emulation needs to fill all
// of them (8 chunks of 16k events are about 3 ms of emulation), so it rarely waits for the worker.
constexpr auto kPollInterval = std::chrono::microseconds(500);
}  // namespace

BackgroundSink::BackgroundSink(TraceSink& inner, std::size_t chunk_events, std::size_t chunks)
    : inner_(inner), chunk_events_(std::max<std::size_t>(chunk_events, 1)) {
    for (std::size_t i = 0; i < std::max<std::size_t>(chunks, 2); ++i) {
        auto c = std::make_unique<Chunk>();
        c->events.resize(chunk_events_);
        free_.push_back(std::move(c));
    }
    filling_ = std::move(free_.back());
    free_.pop_back();
}

BackgroundSink::~BackgroundSink() {
    stop();
}

void BackgroundSink::on_start(const RunInfo& info) {
    inner_.on_start(info);
    if (!worker_.joinable()) worker_ = std::thread([this] { replay_loop(); });
}

void BackgroundSink::on_batch(const EventBatch& batch) {
    if (!worker_.joinable()) {  // never started: behave as the inner sink itself
        inner_.on_batch(batch);
        return;
    }
    if (batch.events.data() != filling_->events.data() + filling_->used)  // not written in place: copy
        std::copy(batch.events.begin(), batch.events.end(), next_batch(batch.events.size()));
    Chunk& c = *filling_;
    c.used += batch.events.size();
    c.text.append(batch.text);
    c.ends.emplace_back(c.used, c.text.size());
    if (c.used >= chunk_events_) hand_over();
}

Event* BackgroundSink::next_batch(std::size_t events) {
    if (filling_->used + events > filling_->events.size()) {
        if (!filling_->ends.empty() && worker_.joinable()) hand_over();
        Chunk& c = *filling_;
        if (c.used + events > c.events.size()) c.events.resize(c.used + events);
    }
    return filling_->events.data() + filling_->used;
}

void BackgroundSink::hand_over() {
    std::unique_lock lock(mutex_);
    ready_.push_back(std::move(filling_));
    // The worker polls: waking it per chunk costs the emulation thread a system call each time.
    // Only when the emulation would wait for a free chunk is the worker woken at once.
    if (free_.empty() && worker_waiting_) ready_cv_.notify_one();
    free_cv_.wait(lock, [this] { return !free_.empty(); });
    filling_ = std::move(free_.back());
    free_.pop_back();
}

void BackgroundSink::replay_loop() {
    for (;;) {
        std::unique_ptr<Chunk> c;
        {
            std::unique_lock lock(mutex_);
            worker_waiting_ = true;
            while (ready_.empty() && !closing_) ready_cv_.wait_for(lock, kPollInterval);
            worker_waiting_ = false;
            if (ready_.empty()) return;
            c = std::move(ready_.front());
            ready_.erase(ready_.begin());
            replaying_ = true;
        }
        bool failed;
        {
            std::lock_guard lock(mutex_);
            failed = failure_ != nullptr;
        }
        if (!failed) {
            try {
                std::size_t event_at = 0, text_at = 0;
                for (auto [event_end, text_end] : c->ends) {
                    EventBatch b{std::span<const Event>(c->events.data() + event_at, event_end - event_at),
                                 std::string_view(c->text.data() + text_at, text_end - text_at)};
                    inner_.on_batch(b);
                    event_at = event_end;
                    text_at = text_end;
                }
            } catch (...) {
                std::lock_guard lock(mutex_);
                failure_ = std::current_exception();
            }
        }
        c->used = 0;
        c->text.clear();
        c->ends.clear();
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(c));
        replaying_ = false;
        free_cv_.notify_all();
    }
}

void BackgroundSink::settle() {
    if (!worker_.joinable()) return;
    if (!filling_->ends.empty()) hand_over();
    std::unique_lock lock(mutex_);
    ready_cv_.notify_one();
    free_cv_.wait(lock, [this] { return ready_.empty() && !replaying_; });
}

void BackgroundSink::stop() {
    if (!worker_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        if (!filling_->ends.empty()) ready_.push_back(std::move(filling_));
        closing_ = true;
        ready_cv_.notify_one();
    }
    worker_.join();
    closing_ = false;  // a later run starts the thread again
    if (!filling_) {
        filling_ = std::move(free_.back());
        free_.pop_back();
    }
}

void BackgroundSink::rethrow_failure() {
    std::exception_ptr f;
    {
        std::lock_guard lock(mutex_);
        f = failure_;
    }
    if (f) std::rethrow_exception(f);
}

void BackgroundSink::on_end() {
    stop();
    rethrow_failure();
    inner_.on_end();
}

}  // namespace emutrace::trace
