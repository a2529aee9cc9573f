// Unicorn 2.0.1's store path without its page-lock tree.
//
// Unicorn 2.0.1 never marks guest RAM dirty, so every guest store to RAM takes QEMU's check for
// self-modifying code (notdirty_write -> tb_invalidate_phys_page_fast), and that check first
// builds a "page collection": a glib tree of page locks, allocated and freed on every store. Unicorn
// takes no page lock (page_lock is a no-op there), and the collection is only handed back to
// page_collection_unlock: building it is all cost. On a store-heavy loop it is about a quarter of
// the host's instructions. Upstream removed it (unicorn-engine/unicorn #1838: page_collection_lock
// returns NULL, page_collection_unlock accepts it), after the 2.0.1 that Debian 12 ships.
//
// The ARM target's two functions are exported by libunicorn and called through its PLT, so a
// definition earlier in the process's symbol lookup (this library, or an executable linking these
// modules) takes their place for every caller, as the upstream fix does. The check for
// self-modifying code itself is untouched: a store into a page with translated code still drops
// that code. A Unicorn built to bind its calls inside the library (-Bsymbolic) never calls these,
// and runs as before. They are weak, so that a program linking Unicorn's static archive keeps
// Unicorn's own (and the lookup below finds no pair). `emutrace run -v` logs what it finds.

#include "emu/detail/unicorn_store_path.h"

#include <dlfcn.h>

#include <atomic>

namespace {

using PageCollectionLock = void* (*)(void*, unsigned long, unsigned long);
using PageCollectionUnlock = void (*)(void*);

// Whether this process calls both functions of the pair defined here: a fact of its libraries,
// found as this code is loaded (find_the_pair), before any engine runs, the same for every
// machine. While it is not (a Unicorn that binds its calls inside the library, or the pair split
// by another definition), the library's own lock builds the collection, and the unlock here hands
// it to the library's own.
std::atomic<bool> pair_here{false};

template <typename Function>
Function library_function(const char* name) {
    return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

// The signatures of Unicorn's qemu/accel/tcg/translate-all.c for the ARM target
// (struct page_collection *, struct uc_struct *, tb_page_addr_t); the collection stays opaque.
[[gnu::weak, gnu::visibility("default"), gnu::used]] void* page_collection_lock_arm(void* uc, unsigned long start, unsigned long end) {
    if (pair_here.load(std::memory_order_relaxed)) [[likely]]
        return nullptr;
    static const auto lock = library_function<PageCollectionLock>("page_collection_lock_arm");
    return lock ? lock(uc, start, end) : nullptr;
}

[[gnu::weak, gnu::visibility("default"), gnu::used]] void page_collection_unlock_arm(void* collection) {
    if (!collection) [[likely]]
        return;
    static const auto unlock = library_function<PageCollectionUnlock>("page_collection_unlock_arm");
    if (unlock) unlock(collection);
}

}  // extern "C"

namespace {

// What the library's calls through its PLT bind to is what the process's lookup finds first.
[[gnu::constructor]] void find_the_pair() {
    pair_here.store(dlsym(RTLD_DEFAULT, "page_collection_lock_arm") == reinterpret_cast<void*>(&page_collection_lock_arm) &&
                        dlsym(RTLD_DEFAULT, "page_collection_unlock_arm") == reinterpret_cast<void*>(&page_collection_unlock_arm),
                    std::memory_order_relaxed);
}

}  // namespace

namespace emutrace::emu::detail {

bool unicorn_store_path_without_page_locks() {
    return pair_here.load(std::memory_order_relaxed);
}

}  // namespace emutrace::emu::detail
