# Finds every third-party dependency. Each comes from a Debian package; a missing one stops the
# configuration with the name of the package to install (scripts/install-deps installs them all).
find_package(PkgConfig REQUIRED)

function(emutrace_require_pkg target module package)
    pkg_check_modules(${target} QUIET IMPORTED_TARGET GLOBAL ${module})
    if(NOT ${target}_FOUND)
        message(FATAL_ERROR "emutrace needs ${module}: install the Debian package ${package} "
                            "(or run scripts/install-deps)")
    endif()
    add_library(emutrace_dep::${target} ALIAS PkgConfig::${target})
endfunction()

function(emutrace_require_config name package)
    find_package(${name} ${ARGN} CONFIG QUIET)
    if(NOT ${name}_FOUND)
        message(FATAL_ERROR "emutrace needs ${name}: install the Debian package ${package} "
                            "(or run scripts/install-deps)")
    endif()
endfunction()

emutrace_require_pkg(unicorn unicorn libunicorn-dev)
emutrace_require_pkg(capstone capstone libcapstone-dev)
emutrace_require_pkg(libelf libelf libelf-dev)
emutrace_require_pkg(libdw libdw libdw-dev)
emutrace_require_pkg(opencsd libopencsd libopencsd-dev)
emutrace_require_pkg(archive libarchive libarchive-dev)
emutrace_require_pkg(msgpack msgpack libmsgpack-dev)
emutrace_require_config(spdlog libspdlog-dev)
emutrace_require_config(yaml-cpp libyaml-cpp-dev)
emutrace_require_config(CLI11 libcli11-dev)
emutrace_require_config(nlohmann_json nlohmann-json3-dev)
emutrace_require_config(doctest doctest-dev)
emutrace_require_config(pugixml libpugixml-dev)

# GLPK ships neither a pkg-config file nor a CMake package on Debian.
find_path(GLPK_INCLUDE_DIR glpk.h)
find_library(GLPK_LIBRARY glpk)
if(NOT GLPK_INCLUDE_DIR OR NOT GLPK_LIBRARY)
    message(FATAL_ERROR "emutrace needs GLPK: install the Debian package libglpk-dev (or run scripts/install-deps)")
endif()
add_library(emutrace_dep::glpk UNKNOWN IMPORTED GLOBAL)
set_target_properties(emutrace_dep::glpk PROPERTIES IMPORTED_LOCATION ${GLPK_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${GLPK_INCLUDE_DIR})

# OpenCSD's C API sits in a library of its own beside libopencsd.
find_library(OPENCSD_C_API_LIBRARY opencsd_c_api)
if(NOT OPENCSD_C_API_LIBRARY)
    message(FATAL_ERROR "emutrace needs OpenCSD's C API: install the Debian package libopencsd-dev (or run scripts/install-deps)")
endif()
add_library(emutrace_dep::opencsd_c_api UNKNOWN IMPORTED GLOBAL)
set_target_properties(emutrace_dep::opencsd_c_api PROPERTIES IMPORTED_LOCATION ${OPENCSD_C_API_LIBRARY}
                      INTERFACE_LINK_LIBRARIES emutrace_dep::opencsd)

# The emutrace command's allocator: gperftools' tcmalloc. Unicorn 2.0.1 never marks guest RAM
# dirty, so every guest store takes QEMU's self-modifying-code check, which allocates and frees a
# page-lock tree (README.md, Benchmark): with glibc's malloc that is a fifth of a store-heavy run.
# Linked only into executables (a library that brought its own malloc would mix allocators in a
# host that loaded it late), and not into sanitizer builds, whose runtime is the allocator.
# -DEMUTRACE_USE_TCMALLOC=OFF keeps glibc's (for heap profilers that wrap it).
option(EMUTRACE_USE_TCMALLOC "Link the emutrace command with gperftools' tcmalloc (faster guest stores)" ON)
add_library(emutrace_allocator INTERFACE)
if(EMUTRACE_USE_TCMALLOC AND NOT EMUTRACE_ENABLE_ASAN AND NOT EMUTRACE_BUILD_FUZZERS)
    emutrace_require_pkg(tcmalloc libtcmalloc_minimal libgoogle-perftools-dev)
    # Nothing calls it by name: only --no-as-needed keeps it on the link line, ahead of libc.
    target_link_libraries(emutrace_allocator INTERFACE "-Wl,--push-state,--no-as-needed" emutrace_dep::tcmalloc "-Wl,--pop-state")
endif()
