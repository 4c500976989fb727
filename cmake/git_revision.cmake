# The git revision of a source tree, written into a generated file only when it changed, so that
# an unchanged tree does not rebuild. Run as a script (-DSRC=tree -DOUT=header) it writes
# twinbench's own revision header; project_info.cmake includes it for a project's revision.
function(twinbench_git_describe src out_var)
  execute_process(COMMAND git -C "${src}" describe --always --dirty --abbrev=12
    OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR rev STREQUAL "")
    set(rev "unknown")
  endif()
  set(${out_var} "${rev}" PARENT_SCOPE)
endfunction()

function(twinbench_write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT "${old}" STREQUAL "${content}")
    file(WRITE "${path}" "${content}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  twinbench_git_describe("${SRC}" rev)
  twinbench_write_if_changed("${OUT}" "#pragma once\n#define TWINBENCH_GIT_REVISION \"${rev}\"\n")
endif()
