# `cmake --install`: the library (twinbench::twinbench, twinbench::main), the headers a
# workload's bench file includes (include/twinbench/twinbench.hpp and what it includes, under
# include/twinbench), and a package config with its version file, so that another project
# writes find_package(twinbench CONFIG) and twinbench_add_benchmark(). The suite's workloads are
# not installed: they are the library's first user, not part of it.
include(CMakePackageConfigHelpers)

set(TWINBENCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/twinbench")
install(TARGETS twinbench_lib twinbench_main EXPORT twinbenchTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(FILES include/twinbench/twinbench.hpp DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench")
# The headers behind the public one keep their paths (common/..., common/...), under
# include/twinbench so that they cannot collide with a project's own common/.
install(DIRECTORY common/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench/common"
        FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY common/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench/bench/detail"
        FILES_MATCHING PATTERN "*.hpp")
install(FILES bench/twinbench.hpp DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench/bench")
# Device-side helpers a project's kernels may use (launch statistics, live progress).
install(FILES gpu/kernel_stats.hpp gpu/kernel_stats.cuh gpu/launch_gate.hpp gpu/progress.cuh
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench/gpu")

install(EXPORT twinbenchTargets NAMESPACE twinbench:: DESTINATION "${TWINBENCH_INSTALL_CMAKEDIR}")
configure_package_config_file(cmake/twinbenchConfig.cmake.in
  "${PROJECT_BINARY_DIR}/twinbenchConfig.cmake" INSTALL_DESTINATION "${TWINBENCH_INSTALL_CMAKEDIR}")
# 0.x: a minor version may change the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/twinbenchConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/twinbenchConfig.cmake"
              "${PROJECT_BINARY_DIR}/twinbenchConfigVersion.cmake"
              cmake/twinbench_add_benchmark.cmake cmake/project_info.cmake cmake/git_revision.cmake
        DESTINATION "${TWINBENCH_INSTALL_CMAKEDIR}")
