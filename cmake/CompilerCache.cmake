# ccache as the compiler launcher when it is installed (scripts/install-deps installs it), set up
# so that another clone of the same commit in another folder hits the same cache entries:
# paths under the source tree are hashed relative to it (base_dir), the build's working directory
# is left out of the hash although -g1 records it (hash_dir), precompiled headers are cached (the
# sloppiness ccache's manual asks for them), and each build writes what hit and
# what missed to ccache-stats.log in its build folder (scripts/test prints the counts).
# EMUTRACE_CCACHE=OFF turns it off; a launcher given on the command line wins.
option(EMUTRACE_CCACHE "Compile through ccache when it is installed" ON)
find_program(EMUTRACE_CCACHE_PROGRAM ccache)
if(EMUTRACE_CCACHE AND EMUTRACE_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER AND NOT CMAKE_C_COMPILER_LAUNCHER)
    set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=true
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        CCACHE_STATSLOG=${PROJECT_BINARY_DIR}/ccache-stats.log ${EMUTRACE_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
    message(STATUS "Compiling through ${EMUTRACE_CCACHE_PROGRAM} (base_dir ${PROJECT_SOURCE_DIR})")
endif()
