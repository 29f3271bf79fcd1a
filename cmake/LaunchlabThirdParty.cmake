# The header-only libraries the course builds on, found once. Debian and
# Ubuntu ship them as nlohmann-json3-dev, libtomlplusplus-dev and
# libcli11-dev; a machine without them (a GPU host without a package
# manager) may put their headers in .carry/include at the course's root.
foreach(library IN ITEMS json:nlohmann/json.hpp toml:toml++/toml.h cli11:CLI/CLI.hpp)
  string(REPLACE ":" ";" parts "${library}")
  list(GET parts 0 name)
  list(GET parts 1 header)
  find_path(LAUNCHLAB_${name}_INCLUDE_DIR "${header}"
    HINTS "${PROJECT_SOURCE_DIR}/.carry/include")
  if(NOT LAUNCHLAB_${name}_INCLUDE_DIR)
    message(FATAL_ERROR "${header} was not found: install nlohmann-json3-dev, libtomlplusplus-dev and libcli11-dev")
  endif()
  add_library(launchlab_third_party_${name} INTERFACE)
  target_include_directories(launchlab_third_party_${name} SYSTEM INTERFACE "${LAUNCHLAB_${name}_INCLUDE_DIR}")
  add_library(launchlab::${name} ALIAS launchlab_third_party_${name})
endforeach()
