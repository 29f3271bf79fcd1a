# Chooses CMAKE_CUDA_ARCHITECTURES before CUDA is enabled.
#
# LAUNCHLAB_CUDA_ARCHITECTURES=auto (the default preset) asks the toolkit's
# __nvcc_device_query for the architectures of the visible GPUs and builds for
# exactly those, which keeps a learner's build fast. Where no GPU answers (a
# laptop without NVIDIA hardware, CI, a Gradescope container) it falls back to
# LAUNCHLAB_FALLBACK_CUDA_ARCHITECTURES: SASS for the datacenter and consumer
# generations the course discusses, plus PTX of the oldest so that a newer
# GPU can still JIT the kernels.
set(LAUNCHLAB_CUDA_ARCHITECTURES "auto" CACHE STRING
  "auto (the visible GPU's own, else the fallback list) or an explicit CMAKE_CUDA_ARCHITECTURES list")
set(LAUNCHLAB_FALLBACK_CUDA_ARCHITECTURES "80-real;86-real;89-real;90-real;80-virtual" CACHE STRING
  "Architectures built when auto finds no GPU")

# The toolkit is found once, here, and everything after uses that one: the
# nvcc asked for the GPU's architecture below becomes CMAKE_CUDA_COMPILER,
# which project() enables, which find_package(CUDAToolkit) takes its root
# from, and which the tests run (launchlab/testing.h). The order a learner
# expects: -DCMAKE_CUDA_COMPILER, then $CUDACXX (./launchlab sets it), then
# $CUDA_HOME/bin, /usr/local/cuda/bin and PATH.
if(NOT CMAKE_CUDA_COMPILER)
  if(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
    set(_launchlab_nvcc "$ENV{CUDACXX}")
  else()
    find_program(_launchlab_nvcc nvcc HINTS "$ENV{CUDA_HOME}/bin" /usr/local/cuda/bin NO_CACHE)
  endif()
  if(_launchlab_nvcc)
    set(CMAKE_CUDA_COMPILER "${_launchlab_nvcc}" CACHE FILEPATH "The CUDA compiler (nvcc)")
  endif()
endif()

# An empty choice (a preset that passes an unset environment variable) is auto.
if(LAUNCHLAB_CUDA_ARCHITECTURES STREQUAL "")
  set(LAUNCHLAB_CUDA_ARCHITECTURES "auto" CACHE STRING "" FORCE)
endif()

# Resolved once per choice: a reconfigure keeps the answer unless the choice changed.
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND "${_LAUNCHLAB_ARCHITECTURES_RESOLVED_FOR}" STREQUAL "${LAUNCHLAB_CUDA_ARCHITECTURES}")
  return()
endif()
set(_LAUNCHLAB_ARCHITECTURES_RESOLVED_FOR "${LAUNCHLAB_CUDA_ARCHITECTURES}" CACHE INTERNAL "")

if(NOT LAUNCHLAB_CUDA_ARCHITECTURES STREQUAL "auto")
  set(CMAKE_CUDA_ARCHITECTURES "${LAUNCHLAB_CUDA_ARCHITECTURES}" CACHE STRING "" FORCE)
  return()
endif()

set(_launchlab_query "")
if(CMAKE_CUDA_COMPILER)
  get_filename_component(_launchlab_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  set(_launchlab_query "${_launchlab_cuda_bin}/__nvcc_device_query")
endif()

set(_launchlab_found "")
if(_launchlab_query AND EXISTS "${_launchlab_query}")
  execute_process(COMMAND "${_launchlab_query}"
    RESULT_VARIABLE _launchlab_rc OUTPUT_VARIABLE _launchlab_out ERROR_QUIET
    OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 30)
  # It prints the visible GPUs' architectures, comma separated ("90" or "80,90").
  if(_launchlab_rc EQUAL 0 AND _launchlab_out MATCHES "^[0-9]+(,[0-9]+)*$")
    string(REPLACE "," ";" _launchlab_found "${_launchlab_out}")
    list(REMOVE_DUPLICATES _launchlab_found)
  endif()
endif()

if(_launchlab_found)
  message(STATUS "launchlab: building for the visible GPU architecture(s): ${_launchlab_found}")
  set(CMAKE_CUDA_ARCHITECTURES "${_launchlab_found}" CACHE STRING "" FORCE)
else()
  message(STATUS "launchlab: no GPU visible; building for ${LAUNCHLAB_FALLBACK_CUDA_ARCHITECTURES}")
  set(CMAKE_CUDA_ARCHITECTURES "${LAUNCHLAB_FALLBACK_CUDA_ARCHITECTURES}" CACHE STRING "" FORCE)
endif()
