# Configure, build and run the sanitized XnnpackBackend tests.
#   cmake -DSANITIZER=thread|address -DSOURCE_DIR=<test/sanitize-xnnpack>
#         -DBINARY_DIR=<build dir> [-DGENERATOR=Ninja] [-DCXX=<compiler>]
#         -P RunXnnpackSanitized.cmake
foreach(v SANITIZER SOURCE_DIR BINARY_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "RunXnnpackSanitized.cmake: ${v} is required")
  endif()
endforeach()

set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR}
    -DPTEC_SANITIZE=${SANITIZER} -DCMAKE_BUILD_TYPE=)
if(GENERATOR)
  list(APPEND configure -G ${GENERATOR})
endif()
if(CXX)
  list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX})
endif()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sanitized XnnpackBackend tests: ${what} failed (${rc})")
  endif()
endfunction()

run_step("configure" ${configure})
run_step("build" ${CMAKE_COMMAND} --build ${BINARY_DIR} --parallel 2)
# Any report fails the run. XNNPACK and pthreadpool are not instrumented:
# the sanitizers check our side of every call (buffers we hand XNNPACK,
# the cache, handles, workspaces, threads we start).
run_step("${SANITIZER}-sanitized run" ${CMAKE_COMMAND} -E env
  "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1"
  "ASAN_OPTIONS=detect_leaks=1 halt_on_error=1 strict_init_order=1"
  "UBSAN_OPTIONS=halt_on_error=1 print_stacktrace=1"
  "LSAN_OPTIONS=report_objects=1"
  ${BINARY_DIR}/xnnpack_sanitized)
