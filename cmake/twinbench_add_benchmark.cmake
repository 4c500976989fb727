# twinbench_add_benchmark(<name> [source...]): an executable of workloads (bench files that
# declare twinbench::Workload rows) with twinbench's main() and command line. Its results record
# the calling project's name, version and git revision (regenerated on every build) beside
# twinbench's version. Included by twinbench's own CMakeLists.txt and by its package config.
set_property(GLOBAL PROPERTY TWINBENCH_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(twinbench_add_benchmark name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE twinbench::main)
  get_property(cmake_dir GLOBAL PROPERTY TWINBENCH_CMAKE_DIR)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}_project_info.cpp")
  add_custom_target(${name}_project_info
    COMMAND ${CMAKE_COMMAND} "-DSRC=${PROJECT_SOURCE_DIR}" "-DOUT=${out}"
            "-DNAME=${PROJECT_NAME}" "-DVERSION=${PROJECT_VERSION}"
            -P "${cmake_dir}/project_info.cmake"
    BYPRODUCTS "${out}"
    COMMENT "twinbench: ${PROJECT_NAME}'s revision for ${name}'s results")
  add_dependencies(${name} ${name}_project_info)
  target_sources(${name} PRIVATE "${out}")
endfunction()
