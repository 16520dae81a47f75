# ptec_schema_parts(<dir> <out-var>): the parts of the schema table in <dir>,
# as full paths, in the order <dir>/ORDER lists them (a file name a line,
# '#' starts a comment). Every .txt in <dir> must be listed, so that a new
# part cannot be left out of the embedded table unnoticed. Used at configure
# time (CMakeLists.txt) and in script mode (EmbedTable.cmake).
function(ptec_schema_parts dir out)
  file(STRINGS "${dir}/ORDER" _lines)
  set(_parts)
  set(_names)
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "#.*" "" _line "${_line}")
    string(STRIP "${_line}" _line)
    if(_line STREQUAL "")
      continue()
    endif()
    if(NOT EXISTS "${dir}/${_line}")
      message(FATAL_ERROR "${dir}/ORDER lists ${_line}, which does not exist")
    endif()
    list(APPEND _parts "${dir}/${_line}")
    list(APPEND _names "${_line}")
  endforeach()
  file(GLOB _present RELATIVE "${dir}" "${dir}/*.txt")
  foreach(_name IN LISTS _present)
    list(FIND _names "${_name}" _index) # not IN_LIST: -P scripts run with old policies
    if(_index EQUAL -1)
      message(FATAL_ERROR "${dir}/${_name} is not listed in ${dir}/ORDER")
    endif()
  endforeach()
  set(${out} "${_parts}" PARENT_SCOPE)
endfunction()
