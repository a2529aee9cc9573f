#include "analysis/calltrace/call_tracer.h"

#include <algorithm>

namespace emutrace::analysis {

CallTracer::CallTracer(const decode::ElfImage& image) : image_(image) {}

std::uint32_t CallTracer::function_of(std::uint32_t address) const {
    const decode::Symbol* f = image_.symbols().function_at(address);
    return f ? f->address : address;
}

std::string CallTracer::function_name(std::uint32_t address) const {
    return image_.symbols().describe(address);
}

CallTracer::Context& CallTracer::refresh_live() {
    if (!exception_contexts_.empty()) return *(live_ = &exception_contexts_.back());
    Context& c = thread_contexts_[current_thread_];
    c.id = c.thread = current_thread_;
    return *(live_ = &c);
}

void CallTracer::emit(const CallEvent& e) {
    for (auto* l : listeners_) l->on_call_event(e);
}

void CallTracer::enter(Context& c, std::uint32_t function, std::uint32_t return_address, std::uint64_t cycle, bool tail) {
    c.frames.push_back({function, return_address});
    CallEvent e;
    e.kind = CallEvent::Kind::Entry;
    e.tail = tail;
    e.cycle = cycle;
    e.function = function;
    e.thread = c.thread;
    e.context = c.id;
    e.depth = static_cast<std::uint32_t>(c.frames.size() - 1);
    emit(e);
}

void CallTracer::pop(Context& c, std::uint64_t cycle, bool tail, bool at_end) {
    Frame f = c.frames.back();
    if (f.inner) {
        c.frames.pop_back();
        return;
    }
    CallEvent e;
    e.kind = CallEvent::Kind::Exit;
    e.tail = tail;
    e.at_end = at_end;
    e.cycle = cycle;
    e.function = f.function;
    e.thread = c.thread;
    e.context = c.id;
    e.depth = static_cast<std::uint32_t>(c.frames.size() - 1);
    c.frames.pop_back();
    emit(e);
}

void CallTracer::leave_to(Context& c, std::uint32_t resume_at, std::uint64_t cycle) {
    for (std::size_t i = c.frames.size(); i-- > 0;) {
        if (c.frames[i].return_address != resume_at) continue;
        while (c.frames.size() > i) pop(c, cycle);
        return;
    }
    // A return to nowhere on the shadow stack: the outermost function returned (main to the
    // start-up code), or code the tracer never saw called. Start over in the function reached.
    if (c.frames.size() == 1) {
        pop(c, cycle);
        enter(c, function_of(resume_at), 0, cycle);
        return;
    }
    ++unmatched_returns_;
}

void CallTracer::on_branch(const trace::Event& e) {
    Context& c = live();
    std::uint32_t to = e.address;
    auto kind = static_cast<trace::BranchKind>(e.value);
    if (kind == trace::BranchKind::Resume) emit({CallEvent::Kind::Resume, e.cycle, 0, c.thread, c.id, 0, 0, 0, false, false});
    if (!c.started) {
        // A context's first code: after reset, a thread's first run, a handler's vector; or,
        // for a call seen first, the caller (the call instruction ends just before e.extra).
        c.started = true;
        enter(c, function_of(kind == trace::BranchKind::Call ? e.extra - 2 : to), 0, e.cycle);
        if (kind != trace::BranchKind::Call) return;
    }
    switch (kind) {
        case trace::BranchKind::Call: {
            const decode::Symbol* f = image_.symbols().function_at(to);
            if (f && f->address != to && !c.frames.empty()) {  // into the middle of code: no function entered
                c.frames.push_back({c.frames.back().function, e.extra, true});
                break;
            }
            enter(c, f ? f->address : to, e.extra, e.cycle);
            break;
        }
        case trace::BranchKind::Return:
        case trace::BranchKind::Jump: {
            // Innermost first: a return nearly always resumes the top frame's caller.
            bool resumes_caller = std::any_of(c.frames.rbegin(), c.frames.rend(), [&](const Frame& fr) { return fr.return_address == to; });
            if (kind == trace::BranchKind::Return && resumes_caller) {
                leave_to(c, to, e.cycle);
                break;
            }
            // A jump to another function's first instruction is a tail call: the callee returns
            // straight to our caller. So is a "return" there that no caller waits for (ARMv6-M
            // code pops a function's address into pc: libgcc's __aeabi_ldivmod to __aeabi_ldiv0).
            const decode::Symbol* f = image_.symbols().function_at(to);
            if (f && f->address == to && !c.frames.empty() && c.frames.back().function != to) {
                std::uint32_t ret = c.frames.back().return_address;
                pop(c, e.cycle, true);
                enter(c, to, ret, e.cycle, true);
                break;
            }
            // An indirect jump to where a caller resumes is a return through another register:
            // ARMv6-M code cannot pop into pc and adjust sp after, so varargs functions end
            // `pop {r3}; add sp, #16; bx r3`. (A direct one there is a loop of a recursive caller.)
            if ((resumes_caller && e.width == 1) || kind == trace::BranchKind::Return) leave_to(c, to, e.cycle);
            break;
        }
        case trace::BranchKind::Vector:
        case trace::BranchKind::Resume: break;
    }
}

std::uint32_t CallTracer::thread_index(std::uint32_t tcb, const std::string& name) {
    if (tcb == 0) return 0;
    auto [it, fresh] = thread_by_tcb_.emplace(tcb, static_cast<std::uint32_t>(thread_names_.size()));
    if (fresh) thread_names_.push_back(name.empty() ? function_name(tcb) : name);
    return it->second;
}

void CallTracer::on_start(const trace::RunInfo& info) {
    cores_.clear();
    core_ = SIZE_MAX;
    exception_base_ = kExceptionContext;
    if (info.cores.size() < 2) return;
    for (const auto& c : info.cores) cores_.push_back({(c.core.empty() ? c.name : c.core) + " (" + c.name + ")", 0, {}, 0});
}

// Each core has its own thread (named after it) and its own nest of handlers; another core's
// events leave them as they are until it runs again.
void CallTracer::switch_core(std::uint32_t core) {
    if (core >= cores_.size() || core == core_) return;
    if (core_ < cores_.size()) {
        cores_[core_].exception_contexts = std::move(exception_contexts_);
        cores_[core_].thread = current_thread_;
    }
    core_ = core;
    Core& c = cores_[core];
    if (c.thread == 0) c.thread = static_cast<std::uint32_t>(thread_names_.size()), thread_names_.push_back(c.name);
    current_thread_ = c.thread;
    exception_contexts_ = std::move(c.exception_contexts);
    exception_base_ = kExceptionContext + static_cast<std::uint32_t>(core) * 0x100;
    live_ = nullptr;
}

void CallTracer::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        last_cycle_ = e.cycle;
        if (core_ < cores_.size() && e.kind != trace::EventKind::Stop && e.kind != trace::EventKind::CoreSwitch) cores_[core_].last_cycle = e.cycle;
        switch (e.kind) {
            case trace::EventKind::Branch: on_branch(e); break;
            case trace::EventKind::ExceptionEntry: {
                std::uint32_t interrupted = exception_contexts_.empty() ? current_thread_ : exception_context(exception_contexts_.size() - 1);
                exception_contexts_.push_back(Context{exception_context(exception_contexts_.size()), 1, {}, false});
                live_ = nullptr;  // the vector may have moved its contexts
                emit({CallEvent::Kind::ExceptionEntry, e.cycle, e.value, 1, interrupted, 0, 0, 0, false, false});
                break;
            }
            case trace::EventKind::ExceptionReturn: {
                if (exception_contexts_.empty()) break;
                Context& c = exception_contexts_.back();
                while (!c.frames.empty()) pop(c, e.cycle);
                exception_contexts_.pop_back();
                live_ = nullptr;
                std::uint32_t resumed = exception_contexts_.empty() ? current_thread_ : exception_context(exception_contexts_.size() - 1);
                emit({CallEvent::Kind::ExceptionReturn, e.cycle, e.value, 1, resumed, 0, 0, 0, false, false});
                break;
            }
            case trace::EventKind::ThreadSwitch:
                current_thread_ = thread_index(e.address, std::string(batch.thread_name(e)));
                live_ = nullptr;
                emit({CallEvent::Kind::ThreadSwitch, e.cycle, 0, current_thread_, current_thread_, 0, 0, 0, false, false});
                break;
            // Not a thread switch: no time passes on one core's clock while another's events are
            // read, so nothing is switched out (each core's calls carry its thread and contexts).
            case trace::EventKind::CoreSwitch: switch_core(e.value); break;
            case trace::EventKind::Marker:
                emit({CallEvent::Kind::Marker, e.cycle, 0, exception_contexts_.empty() ? current_thread_ : 1u, 0, 0, e.value, e.extra, false, false});
                break;
            default: break;
        }
    }
}

void CallTracer::on_end() {
    const std::uint64_t end = last_cycle_;
    auto close_handlers = [this] {
        while (!exception_contexts_.empty()) {
            Context& c = exception_contexts_.back();
            while (!c.frames.empty()) pop(c, last_cycle_, false, true);
            exception_contexts_.pop_back();
        }
    };
    auto close_thread = [this](std::uint32_t thread, Context& c) {
        current_thread_ = thread;
        while (!c.frames.empty()) pop(c, last_cycle_, false, true);
    };
    // Each core's calls still open end with its own trace, on its own clock.
    for (std::uint32_t core = 0; core < cores_.size(); ++core) {
        if (core != core_ && cores_[core].thread == 0) continue;  // no event of it came
        switch_core(core);
        last_cycle_ = cores_[core].last_cycle;
        close_handlers();
        live_ = nullptr;
        if (auto it = thread_contexts_.find(current_thread_); it != thread_contexts_.end()) close_thread(it->first, it->second);
    }
    last_cycle_ = end;
    close_handlers();
    live_ = nullptr;
    for (auto& [thread, c] : thread_contexts_) close_thread(thread, c);
    for (auto* l : listeners_) l->on_finish(last_cycle_);
}

std::vector<std::uint32_t> CallTracer::current_stack() const {
    std::vector<std::uint32_t> out;
    auto it = thread_contexts_.find(current_thread_);
    if (it != thread_contexts_.end())
        for (const auto& f : it->second.frames)
            if (!f.inner) out.push_back(f.function);
    for (const auto& c : exception_contexts_)
        for (const auto& f : c.frames)
            if (!f.inner) out.push_back(f.function);
    return out;
}

}  // namespace emutrace::analysis
