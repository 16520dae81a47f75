# Configure, build and test the runtime-side tree (no MLIR) with a sanitizer,
# as one ctest. Invoked with -DSOURCE_DIR= -DBINARY_DIR= -DSANITIZER= -DGENERATOR=
# -DLABEL= (ctest label selecting the suites to run in the nested build).
foreach(v SOURCE_DIR BINARY_DIR SANITIZER GENERATOR LABEL)
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

run_step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DPTEC_BUILD_COMPILER=OFF
  -DPTEC_SANITIZER=${SANITIZER}
  -DPTEC_SANITIZER_SUITES=OFF)
include(ProcessorCount)
ProcessorCount(n)
if(n EQUAL 0)
  set(n 2)
endif()
run_step(${CMAKE_COMMAND} --build ${BINARY_DIR} -j ${n})
set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0:halt_on_error=1")
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
run_step(${CMAKE_CTEST_COMMAND} --test-dir ${BINARY_DIR} -L ${LABEL}
  --output-on-failure -j ${n})
