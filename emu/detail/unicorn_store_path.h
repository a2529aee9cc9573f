#pragma once
// Unicorn 2.0.1's guest stores without the page-lock tree it builds and frees on each one
// (unicorn_store_path.cpp says why, and how).

namespace emutrace::emu::detail {

/// Whether this process's Unicorn calls the page-collection pair defined here, which skips the
/// tree (a Unicorn that binds its own calls inside the library runs its own, as before).
bool unicorn_store_path_without_page_locks();

}  // namespace emutrace::emu::detail
