# Cross-build for aarch64 Linux with Debian's toolchain (g++-aarch64-linux-gnu) against the arm64
# multiarch packages (libbenchmark-dev:arm64, libgtest-dev:arm64, ...), which install their
# libraries and CMake configs under /usr/lib/aarch64-linux-gnu beside the host's. The binaries run
# under qemu-aarch64 (Debian's qemu-user); scripts/test-aarch64.sh does all of it.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
#         -DTWINBENCH_WITH_CUDA=OFF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: find_package looks in /usr/lib/aarch64-linux-gnu/cmake, never in the x86 one.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# The host's tools (git, ccache), the target's libraries and headers.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# try_run and gtest_discover_tests run target binaries through qemu; the multiarch libc
# (libc6:arm64) provides the dynamic loader, so no -L sysroot is needed.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
