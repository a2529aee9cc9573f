#include "analysis/replay/log_translation.h"

#include <unordered_map>

#include "analysis/replay/event_linker.h"
#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::replay {
namespace {

class AddressMap {
public:
    AddressMap(const decode::SymbolTable& from, const decode::SymbolTable& to, const std::string& name) : from_(from), to_(to), name_(name) {
        for (const decode::Symbol& s : to.all()) ++count_[s.name];
    }
    /// `address` in the replaying build; unchanged when no symbol holds it (a device register).
    std::uint32_t operator()(std::uint32_t address) const {
        const std::uint32_t thumb = address & 1;
        const decode::Symbol* s = from_.function_at(address & ~1u);
        if (!s) s = from_.object_at(address);
        if (!s) return address;
        auto n = count_.find(s->name);
        if (n == count_.end())
            throw ConfigError(name_ + ": " + config::hex32(address) + " is " + s->name + ", which the replayed firmware does not have");
        if (n->second > 1)
            throw ConfigError(name_ + ": " + config::hex32(address) + " is " + s->name + ", which the replayed firmware has " +
                              std::to_string(n->second) + " times: rename one to tell them apart");
        const std::uint32_t offset = (address & ~thumb) - s->address;
        return (*to_.address_of(s->name) + offset) | (s->is_function ? thumb : 0);
    }

private:
    const decode::SymbolTable &from_, &to_;
    std::string name_;
    std::unordered_map<std::string, int> count_;
};

}  // namespace

EventLog translate_log(const EventLog& log, const decode::SymbolTable& from, const decode::SymbolTable& to, const std::string& from_name) {
    AddressMap map(from, to, from_name);
    EventLog out = log;
    for (LogEvent& e : out.events) {
        if (e.thread != 0 && e.thread < kHandlerThread) e.thread = map(e.thread);
        switch (e.op) {
            case Operation::Interrupt:
                e.value = map(e.value);  // the interrupted pc: the same function and offset, where the builds agree
                break;
            case Operation::Delay:
            case Operation::Yield: break;
            default: e.object = map(e.object); break;
        }
    }
    return out;
}

}  // namespace emutrace::analysis::replay
