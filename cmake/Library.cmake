# libemutrace: the modules as one shared and one static library, and what `cmake --install`
# puts in a prefix: headers under include/emutrace/, the libraries, the emutrace command, a CMake
# package (find_package(emutrace), target emutrace::emutrace) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

configure_file(${PROJECT_SOURCE_DIR}/include/emutrace/version.h.in ${PROJECT_BINARY_DIR}/generated/emutrace/version.h @ONLY)

# The modules, in link order. Tests and benchmarks link them directly (emutrace_internal).
set(emutrace_modules emutrace_silicon emutrace_session emutrace_debug emutrace_analysis emutrace_report emutrace_emu emutrace_models emutrace_sources emutrace_decode
    emutrace_config emutrace_trace)
add_library(emutrace_internal INTERFACE)
target_link_libraries(emutrace_internal INTERFACE ${emutrace_modules})

# Shared: every module's objects (--whole-archive: a plug-in may use any public symbol), its
# third-party libraries linked privately. Intra-library calls bind directly (no PLT), so the
# shared library runs as fast as the static modules.
add_library(emutrace_shared SHARED ${PROJECT_SOURCE_DIR}/session/library_version.cpp)
set(whole)
foreach(m IN LISTS emutrace_modules)
    list(APPEND whole $<TARGET_FILE:${m}>)
endforeach()
target_link_options(emutrace_shared PRIVATE LINKER:--whole-archive ${whole} LINKER:--no-whole-archive LINKER:-Bsymbolic-functions)
target_link_libraries(emutrace_shared PRIVATE emutrace_internal PUBLIC emutrace_options)
add_dependencies(emutrace_shared ${emutrace_modules})
set_target_properties(emutrace_shared PROPERTIES OUTPUT_NAME emutrace VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

# Static: the modules' archives merged into one libemutrace.a (not in a sanitizer build, which is
# never installed and whose thin archives hold no objects to merge: CMakeLists.txt).
if(NOT EMUTRACE_ENABLE_ASAN)
    set(static_lib ${PROJECT_BINARY_DIR}/lib/libemutrace.a)
    set(mri "CREATE ${static_lib}\n")
    foreach(m IN LISTS emutrace_modules)
        string(APPEND mri "ADDLIB $<TARGET_FILE:${m}>\n")
    endforeach()
    string(APPEND mri "SAVE\nEND\n")
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/libemutrace.mri CONTENT "${mri}")
    add_custom_command(OUTPUT ${static_lib}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/lib
        COMMAND ${CMAKE_COMMAND} -E rm -f ${static_lib}
        COMMAND sh -c "\"$0\" -M < \"$1\"" ${CMAKE_AR} ${PROJECT_BINARY_DIR}/libemutrace.mri
        DEPENDS ${emutrace_modules} ${PROJECT_BINARY_DIR}/libemutrace.mri
        COMMENT "Merging the modules into libemutrace.a" VERBATIM)
    add_custom_target(emutrace_static ALL DEPENDS ${static_lib})
    install(FILES ${static_lib} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# What a static link needs besides libemutrace.a.
set(EMUTRACE_STATIC_LIBS "-lunicorn -lcapstone -lelf -ldw -lopencsd_c_api -lopencsd -lpugixml -lglpk -lyaml-cpp -larchive -lspdlog -lfmt -lpthread -ldl")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/emutrace DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/emutrace/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/emutrace)
install(TARGETS emutrace_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS emutrace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_BINARY_DIR}/firmware/ DESTINATION ${CMAKE_INSTALL_BINDIR}/firmware FILES_MATCHING PATTERN "*.elf")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/emutraceConfig.cmake.in ${PROJECT_BINARY_DIR}/emutraceConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/emutrace PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# Before 1.0 a minor version may break the public classes: only the same minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/emutraceConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/emutraceConfig.cmake ${PROJECT_BINARY_DIR}/emutraceConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/emutrace)
file(RELATIVE_PATH EMUTRACE_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/emutrace.pc.in ${PROJECT_BINARY_DIR}/emutrace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/emutrace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
