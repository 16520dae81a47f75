# Shared CMake helpers for ptec. One place for how tests are declared.

# ptec_add_unit_test(<name> SOURCES a.cpp ... LIBS lib ... [LABELS l ...])
# A Catch2 (v2) test binary, registered with ctest under its own name.
# Plain add_executable on purpose: Catch2 needs exceptions, which LLVM's
# add_llvm_executable turns off.
function(ptec_add_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ptec_catch_main ${ARG_LIBS})
  target_compile_options(${name} PRIVATE -fexceptions)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "unit;${ARG_LABELS}")
endfunction()

# ptec_optional_subdirs(a b ...): add each listed subdirectory that has a
# CMakeLists.txt. Lets areas of the tree land independently.
macro(ptec_optional_subdirs)
  foreach(_d ${ARGN})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_d}/CMakeLists.txt)
      add_subdirectory(${_d})
    endif()
  endforeach()
endmacro()

# ptec_add_sanitized_suite(<suite> [LABELS l ...])
# Registers <suite>_tsan and <suite>_asan: the small project test/sanitize
# (PTEC_SANITIZED_SUITE=<suite>) built and run under ThreadSanitizer and
# under AddressSanitizer (+UBSan, LeakSanitizer) by cmake/RunNestedSuite.cmake,
# the one driver of every sanitized configuration.
function(ptec_add_sanitized_suite suite)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  if(NOT PTEC_SANITIZER_SUITES OR PTEC_SANITIZER)
    return()
  endif()
  foreach(san tsan asan)
    if(san STREQUAL "tsan")
      set(kind thread)
    else()
      set(kind address)
    endif()
    add_test(NAME ${suite}_${san}
      COMMAND ${CMAKE_COMMAND}
        -DSTEP=suite -DSUITE=${suite} -DSANITIZER=${kind}
        -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
        -DBINARY_DIR=${CMAKE_BINARY_DIR}/sanitize-${suite}-${san}
        -DGENERATOR=${CMAKE_GENERATOR}
        -DCXX=${CMAKE_CXX_COMPILER}
        -P ${PROJECT_SOURCE_DIR}/cmake/RunNestedSuite.cmake)
    set_tests_properties(${suite}_${san} PROPERTIES
      LABELS "sanitize;${ARG_LABELS}"
      TIMEOUT 1200
      RESOURCE_LOCK ptec_sanitize_build)
  endforeach()
endfunction()
