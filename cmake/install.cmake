# `cmake --install`: the library (twinbench::twinbench, twinbench::main), the public headers
# (include/twinbench), and a package config with its version file, so that another project
# writes find_package(twinbench CONFIG) and twinbench_add_benchmark(). The suite's workloads are
# not installed: they are the library's first user, not part of it.
include(CMakePackageConfigHelpers)

set(TWINBENCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/twinbench")
install(TARGETS twinbench_lib twinbench_main EXPORT twinbenchTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# The public API is include/twinbench/ and nothing else: its headers include no other folder of
# the repository (tests/cli/test_structure.py holds them to that), so the library's internals
# (common/) and the suite (bench/, cpu/, gpu/) stay uninstalled.
install(DIRECTORY include/twinbench/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/twinbench"
        FILES_MATCHING PATTERN "*.hpp")

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
