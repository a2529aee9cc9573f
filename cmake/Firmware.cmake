# Builds the bare-metal test firmware with arm-none-eabi-gcc.
#
# The firmware is not a CMake language target: the host toolchain drives
# the project, so each ELF is one custom command that compiles and links
# in a single gcc invocation (no per-object rules to keep in sync).

include_guard(GLOBAL)

find_program(EMUTRACE_ARM_GCC arm-none-eabi-gcc)
if(NOT EMUTRACE_ARM_GCC)
  message(FATAL_ERROR "arm-none-eabi-gcc not found: install the Debian packages gcc-arm-none-eabi and libnewlib-arm-none-eabi")
endif()

# Captured here because CMAKE_CURRENT_LIST_DIR is the caller's inside the function.
get_filename_component(EMUTRACE_FW_RUNTIME_DIR "${CMAKE_CURRENT_LIST_DIR}/../firmware/runtime" ABSOLUTE)
set(EMUTRACE_FW_RUNTIME_DIR "${EMUTRACE_FW_RUNTIME_DIR}" CACHE INTERNAL "")
file(GLOB EMUTRACE_FW_RUNTIME_SOURCES CONFIGURE_DEPENDS "${EMUTRACE_FW_RUNTIME_DIR}/*.c")
file(GLOB EMUTRACE_FW_RUNTIME_HEADERS CONFIGURE_DEPENDS "${EMUTRACE_FW_RUNTIME_DIR}/*.h")
set(EMUTRACE_FW_RUNTIME_SOURCES "${EMUTRACE_FW_RUNTIME_SOURCES}" CACHE INTERNAL "")
set(EMUTRACE_FW_RUNTIME_HEADERS "${EMUTRACE_FW_RUNTIME_HEADERS}" CACHE INTERNAL "")
set(EMUTRACE_FW_MODULE "${CMAKE_CURRENT_LIST_FILE}" CACHE INTERNAL "")
# The RTOS kernel shared by tests/firmware/rtos and scenarios/: list
# ${EMUTRACE_FW_RTOS_DIR}/kernel.c in SOURCES and the dir in INCLUDE_DIRS.
get_filename_component(EMUTRACE_FW_RTOS_DIR "${CMAKE_CURRENT_LIST_DIR}/../firmware/rtos" ABSOLUTE)
set(EMUTRACE_FW_RTOS_DIR "${EMUTRACE_FW_RTOS_DIR}" CACHE INTERNAL "")
# The firmware-side replay recorder (docs/replay.md): ${EMUTRACE_FW_REPLAY_DIR}/emutrace_replay.c
# in SOURCES and the dir in INCLUDE_DIRS.
get_filename_component(EMUTRACE_FW_REPLAY_DIR "${CMAKE_CURRENT_LIST_DIR}/../firmware/replay" ABSOLUTE)
set(EMUTRACE_FW_REPLAY_DIR "${EMUTRACE_FW_REPLAY_DIR}" CACHE INTERNAL "")
# The firmware-side function tracer (docs/ontarget.md): ${EMUTRACE_FW_ONTARGET_DIR}/emutrace_trace.c
# in SOURCES, the dir in INCLUDE_DIRS, and FLAGS -finstrument-functions.
get_filename_component(EMUTRACE_FW_ONTARGET_DIR "${CMAKE_CURRENT_LIST_DIR}/../firmware/ontarget" ABSOLUTE)
set(EMUTRACE_FW_ONTARGET_DIR "${EMUTRACE_FW_ONTARGET_DIR}" CACHE INTERNAL "")
get_filename_component(EMUTRACE_FW_NEWLIB_DIR "${CMAKE_CURRENT_LIST_DIR}/../firmware/newlib" ABSOLUTE)
set(EMUTRACE_FW_NEWLIB_DIR "${EMUTRACE_FW_NEWLIB_DIR}" CACHE INTERNAL "")

# emutrace_add_firmware(NAME <name> SOURCES <files...>
#                       [CPU cortex-m3] [LAYOUT mps2_an385] [DEFINES A=1 ...]
#                       [INCLUDE_DIRS <dirs...>] [DEPENDS <files...>] [FLAGS <gcc flags...>]
#                       [ARM] [NO_RUNTIME] [NEWLIB])
# Produces ${CMAKE_BINARY_DIR}/firmware/<name>.elf and target firmware_<name>.
# ARM compiles to the ARM instruction set instead of Thumb (A-profile CPUs);
# NO_RUNTIME leaves out firmware/runtime (startup, semihosting, printing).
# NEWLIB links newlib-nano's libc and libm (string, stdio, math) with the
# system calls of firmware/newlib over semihosting, as real firmware is.
# INCLUDE_DIRS are added with -I and their *.h files rebuild the ELF when
# they change; DEPENDS lists further files that should.
function(emutrace_add_firmware)
  cmake_parse_arguments(FW "ARM;NO_RUNTIME;NEWLIB" "NAME;CPU;LAYOUT" "SOURCES;DEFINES;INCLUDE_DIRS;DEPENDS;FLAGS" ${ARGN})
  if(NOT FW_NAME OR NOT FW_SOURCES)
    message(FATAL_ERROR "emutrace_add_firmware: NAME and SOURCES are required")
  endif()
  if(FW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "emutrace_add_firmware(${FW_NAME}): unknown arguments ${FW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT FW_CPU)
    set(FW_CPU cortex-m3)
  endif()
  if(NOT FW_LAYOUT)
    set(FW_LAYOUT mps2_an385)
  endif()

  set(ld "${EMUTRACE_FW_RUNTIME_DIR}/layouts/${FW_LAYOUT}.ld")
  if(NOT EXISTS "${ld}")
    message(FATAL_ERROR "emutrace_add_firmware(${FW_NAME}): no linker script ${ld}")
  endif()

  set(sources "")
  foreach(src IN LISTS FW_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND sources "${abs}")
  endforeach()

  set(defines "")
  foreach(def IN LISTS FW_DEFINES)
    list(APPEND defines "-D${def}")
  endforeach()

  set(includes "")
  set(extra_depends "")
  foreach(dir IN LISTS FW_INCLUDE_DIRS)
    get_filename_component(abs "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND includes "-I${abs}")
    file(GLOB headers CONFIGURE_DEPENDS "${abs}/*.h")
    list(APPEND extra_depends ${headers})
  endforeach()
  foreach(dep IN LISTS FW_DEPENDS)
    get_filename_component(abs "${dep}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND extra_depends "${abs}")
  endforeach()

  set(isa -mthumb)
  if(FW_ARM)
    set(isa -marm)
  endif()
  set(runtime ${EMUTRACE_FW_RUNTIME_SOURCES})
  if(FW_NO_RUNTIME)
    set(runtime "")
  endif()

  # Freestanding with libgcc only, or hosted on newlib-nano.
  set(libc_flags -ffreestanding -nostdlib)
  set(libc_libs -lgcc)
  if(FW_NEWLIB)
    set(libc_flags --specs=nano.specs)
    list(APPEND runtime "${EMUTRACE_FW_NEWLIB_DIR}/newlib_syscalls.c")
    set(libc_libs -Wl,--start-group -lm -lc -lgcc -Wl,--end-group)
  endif()

  set(outdir "${CMAKE_BINARY_DIR}/firmware")
  set(elf "${outdir}/${FW_NAME}.elf")
  file(MAKE_DIRECTORY "${outdir}")

  add_custom_command(
    OUTPUT "${elf}"
    BYPRODUCTS "${outdir}/${FW_NAME}.map"
    # Soft float everywhere: the emulated cores need no FPU set-up, and
    # the result is identical across M0/M3/M4 builds.
    COMMAND "${EMUTRACE_ARM_GCC}"
            ${isa} "-mcpu=${FW_CPU}" -mfloat-abi=soft
            -O2 -g -std=c11 -Wall -Wextra
            ${libc_flags} -ffunction-sections -fdata-sections ${FW_FLAGS}
            -nostartfiles
            "-I${EMUTRACE_FW_RUNTIME_DIR}"
            ${includes}
            ${defines}
            ${sources} ${runtime}
            -T "${ld}" "-L${EMUTRACE_FW_RUNTIME_DIR}/layouts"
            -Wl,--gc-sections
            # .ramfunc code sits in writable .data on purpose.
            -Wl,--no-warn-rwx-segments
            "-Wl,-Map=${outdir}/${FW_NAME}.map"
            ${libc_libs}
            -o "${elf}"
    DEPENDS ${sources} ${runtime} ${EMUTRACE_FW_RUNTIME_HEADERS}
            ${extra_depends} "${ld}" "${EMUTRACE_FW_RUNTIME_DIR}/layouts/sections.ld" "${EMUTRACE_FW_MODULE}"
    COMMENT "Building firmware ${FW_NAME}.elf (${FW_CPU})"
    VERBATIM
  )
  add_custom_target(firmware_${FW_NAME} ALL DEPENDS "${elf}")
  set_target_properties(firmware_${FW_NAME} PROPERTIES EMUTRACE_FIRMWARE_ELF "${elf}")

  set_property(GLOBAL APPEND PROPERTY EMUTRACE_FIRMWARE_ELFS "${elf}")
  set_property(GLOBAL APPEND PROPERTY EMUTRACE_FIRMWARE_TARGETS firmware_${FW_NAME})
endfunction()
