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
