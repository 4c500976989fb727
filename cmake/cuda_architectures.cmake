# The CUDA architectures to build when the user named none (-DCMAKE_CUDA_ARCHITECTURES, the
# CUDAARCHS environment variable, or CUDA_ARCH through the scripts): the GPUs this machine's
# driver sees, else a portable set.
#
# - A GPU present (nvidia-smi answers): SASS for each GPU's compute capability, as `native` would
#   give, but written out so that the run's context names it.
# - None (CI, bundles built for another machine): SASS for Turing (sm_75: T4, RTX 20xx), Ampere
#   (sm_80: A100; its SASS also runs on sm_86 and sm_89: A10, L4, RTX 30xx/40xx) and Hopper
#   (sm_90: H100, H200), plus compute_90 PTX, which the driver JIT-compiles on newer GPUs
#   (Blackwell). Each architecture compiles every .cu file once more: about 5 minutes a
#   architecture on a 2-core machine, so CI and scripts/test.sh name a smaller set (CUDA_ARCH).
set(TWINBENCH_PORTABLE_CUDA_ARCHITECTURES "75-real;80-real;90-real;90-virtual")

function(twinbench_default_cuda_architectures out)
  find_program(TWINBENCH_NVIDIA_SMI nvidia-smi)
  if(TWINBENCH_NVIDIA_SMI)
    execute_process(COMMAND ${TWINBENCH_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE status ERROR_QUIET TIMEOUT 20)
    if(status EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      set(archs "")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND archs "${arch}-real")
      endforeach()
      list(REMOVE_DUPLICATES archs)
      if(archs)
        message(STATUS "CUDA architectures: ${archs} (the GPUs nvidia-smi sees)")
        set(${out} "${archs}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endif()
  message(STATUS "CUDA architectures: ${TWINBENCH_PORTABLE_CUDA_ARCHITECTURES} (no GPU seen: "
                 "the portable set)")
  set(${out} "${TWINBENCH_PORTABLE_CUDA_ARCHITECTURES}" PARENT_SCOPE)
endfunction()
