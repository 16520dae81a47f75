# The one driver of every sanitized configuration: ptec rebuilt under a
# sanitizer in a nested build directory, and its tests run there.
#
# STEP=build / STEP=test: the whole tree (compiler, passes, emitter, tools,
# runtime) under ASan+UBSan+LSan. Two ctests drive it (test/CMakeLists.txt):
# STEP=build configures and builds (the fixture), STEP=test runs ctest in the
# nested tree on LABELS.
#
#   cmake -DSOURCE_DIR= -DBINARY_DIR= -DSANITIZER=address -DGENERATOR=
#         -DSTEP=build|test [-DCLANGXX= -DCLANG=] [-DLABELS=<ctest -L regex>]
#         [-DSTATE_DIFF_SEEDS=n] [-DREPLAY_MUTANTS=n] [-DMLIR_DIR= -DLIT=]
#         -P RunNestedSuite.cmake
#
# With CLANGXX (a clang++ that can link libFuzzer) the tree is built with it
# and -DPTEC_BUILD_FUZZERS=ON, so the same build also yields the libFuzzer
# targets (asan_fuzz_* tests). Without it, the host compiler builds the tree
# and the fuzzers are left out (those tests then report SKIPPED).
#
# STEP=suite: one small MLIR-free project (test/sanitize, SUITE=context_cache
# or xnnpack) under SANITIZER=thread or address, configured, built and run in
# one go (ctests <suite>_tsan / <suite>_asan, ptec_add_sanitized_suite()).
#
#   cmake -DSOURCE_DIR=<repo root> -DBINARY_DIR= -DSANITIZER=thread|address
#         -DGENERATOR= -DSTEP=suite -DSUITE= [-DCXX=] -P RunNestedSuite.cmake
foreach(v SOURCE_DIR BINARY_DIR SANITIZER GENERATOR STEP)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "RunNestedSuite.cmake: ${v} is not set")
  endif()
endforeach()

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}")
  endif()
endfunction()

# Builds BINARY_DIR. A failed attempt is retried once, serially, after
# printing what the failure looked like: a clean clone under load once saw
# llvm-ar miss an object ninja had not rebuilt, not reproduced since. For each
# file the failing build said is missing, the log shows whether it exists now
# and what ninja's log recorded for it, so a recurrence names its cause. A
# real compile error fails the retry too.
function(build_with_one_retry)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} -j ${n}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out ECHO_OUTPUT_VARIABLE
    ECHO_ERROR_VARIABLE)
  if(rc EQUAL 0)
    return()
  endif()
  message(WARNING "nested build of ${BINARY_DIR} failed (${rc}); retrying once with -j 1")
  string(REGEX MATCHALL "[^ :'\"\n]+\\.o: No such file or directory" missing "${out}")
  foreach(m IN LISTS missing)
    string(REGEX REPLACE ": No such file or directory$" "" obj "${m}")
    set(state "absent")
    if(EXISTS ${BINARY_DIR}/${obj})
      set(state "present now")
    endif()
    set(logged "not in .ninja_log")
    if(EXISTS ${BINARY_DIR}/.ninja_log)
      file(STRINGS ${BINARY_DIR}/.ninja_log lines REGEX "\t${obj}$")
      if(lines)
        set(logged ".ninja_log: ${lines}")
      endif()
    endif()
    message(WARNING "missing object ${obj}: ${state}; ${logged}")
  endforeach()
  run_step(${CMAKE_COMMAND} --build ${BINARY_DIR} -j 1)
  message(WARNING "nested build of ${BINARY_DIR} passed on the retry: the first attempt failed")
endfunction()

include(ProcessorCount)
ProcessorCount(n)
if(n EQUAL 0)
  set(n 2)
endif()

if(STEP STREQUAL "build")
  # -O1 and line tables only: sanitizer reports keep file:line, while
  # compiling and linking the MLIR-heavy binaries stays affordable.
  set(flags "-O1 -DNDEBUG")
  set(args)
  foreach(budget STATE_DIFF_SEEDS REPLAY_MUTANTS)
    if(DEFINED ${budget})
      string(REPLACE "REPLAY_MUTANTS" "FUZZ_REPLAY_MUTANTS" name ${budget})
      list(APPEND args -DPTEC_${name}=${${budget}})
    endif()
  endforeach()
  if(MLIR_DIR)
    list(APPEND args -DMLIR_DIR=${MLIR_DIR})
  endif()
  if(LIT)
    list(APPEND args -DLLVM_EXTERNAL_LIT=${LIT})
  endif()
  set(fuzzers OFF)
  if(CLANGXX)
    # libclang-rt-*-dev provides libFuzzer; without it, no fuzzers.
    set(probe ${BINARY_DIR}-probe)
    file(MAKE_DIRECTORY ${probe})
    file(WRITE ${probe}/probe.cpp
      "#include <cstdint>\n#include <cstddef>\n"
      "extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n")
    execute_process(
      COMMAND ${CLANGXX} -fsanitize=fuzzer,address,undefined ${probe}/probe.cpp -o ${probe}/probe
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(fuzzers ON)
      list(APPEND args -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_C_COMPILER=${CLANG})
      string(APPEND flags " -gline-tables-only")
    else()
      message(STATUS "${CLANGXX} cannot link libFuzzer; building without fuzzers")
    endif()
  endif()
  if(NOT fuzzers)
    string(APPEND flags " -g1")
  endif()
  run_step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${flags}"
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=${flags}"
    -DPTEC_SANITIZER=${SANITIZER}
    -DPTEC_SANITIZER_SUITES=OFF
    -DPTEC_BUILD_BENCH=OFF
    -DPTEC_BUILD_FUZZERS=${fuzzers}
    ${args})
  # The build runs sanitized tools too (aot-compile writes test programs), so
  # it needs the same allow_user_poisoning=0 as the test step (below).
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=1:halt_on_error=1:allow_user_poisoning=0")
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
  build_with_one_retry()
elseif(STEP STREQUAL "test")
  if(NOT DEFINED LABELS)
    message(FATAL_ERROR "RunNestedSuite.cmake: STEP=test needs LABELS")
  endif()
  # abort_on_error: a report ends the process with SIGABRT, so a test that
  # expects a tool to fail (`not aot-compile ...`) cannot mistake a memory
  # error for the error exit it wanted. allow_user_poisoning=0: LLVM's
  # BumpPtrAllocator poisons slabs when inlined into instrumented code but
  # not inside the prebuilt libMLIR, which would read as use-after-poison.
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=1:halt_on_error=1:allow_user_poisoning=0")
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
  run_step(${CMAKE_CTEST_COMMAND} --test-dir ${BINARY_DIR} -L "${LABELS}"
    --output-on-failure -j ${n})
elseif(STEP STREQUAL "suite")
  if(NOT DEFINED SUITE)
    message(FATAL_ERROR "RunNestedSuite.cmake: STEP=suite needs SUITE")
  endif()
  # A build folder configured from another source (an older layout) is
  # started afresh: CMake refuses to reuse it.
  if(EXISTS ${BINARY_DIR}/CMakeCache.txt)
    file(STRINGS ${BINARY_DIR}/CMakeCache.txt home REGEX "^CMAKE_HOME_DIRECTORY:")
    if(NOT home STREQUAL "CMAKE_HOME_DIRECTORY:INTERNAL=${SOURCE_DIR}/test/sanitize")
      file(REMOVE_RECURSE ${BINARY_DIR})
    endif()
  endif()
  set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/sanitize -B ${BINARY_DIR}
    -G ${GENERATOR} -DPTEC_SANITIZE=${SANITIZER} -DPTEC_SANITIZED_SUITE=${SUITE}
    -DCMAKE_BUILD_TYPE=)
  if(CXX)
    list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX})
  endif()
  run_step(${configure})
  build_with_one_retry()
  # Any report fails the run: TSan and ASan/UBSan halt with a non-zero exit,
  # LSan checks for leaks at exit.
  run_step(${CMAKE_COMMAND} -E env
    "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1"
    "ASAN_OPTIONS=detect_leaks=1 halt_on_error=1 strict_init_order=1"
    "UBSAN_OPTIONS=halt_on_error=1 print_stacktrace=1"
    "LSAN_OPTIONS=report_objects=1"
    ${BINARY_DIR}/sanitized_suite)
else()
  message(FATAL_ERROR "RunNestedSuite.cmake: STEP must be build, test or suite")
endif()
