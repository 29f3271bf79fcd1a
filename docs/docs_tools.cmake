# Whether the tools that build the course site are here, and what to install
# when they are not. docs/CMakeLists.txt includes this file when the course is
# configured; without the tools, its `docs` target runs the same file again as
# a script when it is built, so that the answer is this machine's at build
# time, not what it was when the build tree was configured:
#
#   cmake -DLAUNCHLAB_SOURCE_DIR=<course> -DLAUNCHLAB_DOCS_STAMP=<file> -P docs/docs_tools.cmake
#
# The Debian packages and the file or command each one provides are those of
# packages.txt's "docs" group, the list the bootstrap installs from.

# Run as a script, it keeps the project's policies: with the old ones,
# find_program would take a file that is not executable for a program.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)
endif()

# launchlab_probe_docs_tools(<source dir>) sets, in the caller's scope:
#   LAUNCHLAB_DOXYGEN, LAUNCHLAB_SPHINX_BUILD   the tools (found when not set)
#   LAUNCHLAB_DOCS_MISSING    what is missing, for a message; empty when the site can be built
#   LAUNCHLAB_DOCS_PACKAGES   the Debian packages of packages.txt that are not installed
#   LAUNCHLAB_DOCS_WATCH      the folders those packages would install into
#   LAUNCHLAB_DOCS_VERSIONS   the versions found, for a message
function(launchlab_probe_docs_tools source_dir)
  if(NOT LAUNCHLAB_DOXYGEN OR NOT EXISTS "${LAUNCHLAB_DOXYGEN}")
    find_program(LAUNCHLAB_DOXYGEN NAMES doxygen NO_CACHE)
  endif()
  if(NOT LAUNCHLAB_SPHINX_BUILD OR NOT EXISTS "${LAUNCHLAB_SPHINX_BUILD}")
    # Prefer the distribution's sphinx-build: its interpreter is the one that
    # has Breathe, MyST and furo installed beside Sphinx.
    find_program(LAUNCHLAB_SPHINX_BUILD NAMES sphinx-build PATHS /usr/bin NO_DEFAULT_PATH NO_CACHE)
    if(NOT LAUNCHLAB_SPHINX_BUILD)
      find_program(LAUNCHLAB_SPHINX_BUILD NAMES sphinx-build sphinx-build-3 NO_CACHE)
    endif()
  endif()

  set(missing "")
  set(versions "")
  if(NOT LAUNCHLAB_DOXYGEN OR NOT EXISTS "${LAUNCHLAB_DOXYGEN}")
    list(APPEND missing "doxygen")
  endif()
  if(NOT LAUNCHLAB_SPHINX_BUILD OR NOT EXISTS "${LAUNCHLAB_SPHINX_BUILD}")
    list(APPEND missing "sphinx-build")
  else()
    # sphinx-build is a Python script: ask its own interpreter (from the #!
    # line) whether the extensions the site uses are importable, and whether
    # Sphinx is recent enough for include_patterns (5.1).
    file(STRINGS "${LAUNCHLAB_SPHINX_BUILD}" shebang LIMIT_COUNT 1)
    set(python "")
    if(shebang MATCHES "^#![ \t]*(.+)$")
      string(STRIP "${CMAKE_MATCH_1}" python)
      separate_arguments(python UNIX_COMMAND "${python}")
    endif()
    # (The command is not kept in a variable: the Python's semicolons would
    # split it into a CMake list.)
    if(python)
      execute_process(COMMAND ${python} -c
        "import sphinx, breathe, myst_parser, furo, sphinx_copybutton; assert sphinx.version_info >= (5, 1), sphinx.__version__; print(f'Sphinx {sphinx.__version__}, Breathe {breathe.__version__}, MyST-Parser {myst_parser.__version__}, furo {furo.__version__}, sphinx-copybutton {sphinx_copybutton.__version__}')"
        RESULT_VARIABLE rc OUTPUT_VARIABLE versions ERROR_VARIABLE error
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE TIMEOUT 60)
    else()
      # Not a script with a #! line (a wrapper or a frozen binary): ask it.
      execute_process(COMMAND "${LAUNCHLAB_SPHINX_BUILD}" --version
        RESULT_VARIABLE rc OUTPUT_VARIABLE versions ERROR_VARIABLE error
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE TIMEOUT 60)
    endif()
    if(NOT rc EQUAL 0)
      # The last line of Python's complaint says which module is missing.
      string(REGEX REPLACE ".*\n" "" error "${error}")
      if(error)
        set(error " (${error})")
      endif()
      list(APPEND missing
        "Sphinx >= 5.1 with breathe, myst_parser, furo and sphinx_copybutton for ${LAUNCHLAB_SPHINX_BUILD}${error}")
    endif()
  endif()

  # What to install: the docs packages of packages.txt whose file or command
  # is not here, and the folders each would appear in (for the build to
  # notice when they do).
  set(packages "")
  set(watch "")
  file(STRINGS "${source_dir}/packages.txt" lines REGEX "^docs[ \t]")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^docs[ \t]+([^ \t]+)[ \t]+(command|file):([^ \t]+)" _ "${line}")
    set(package "${CMAKE_MATCH_1}")
    set(kind "${CMAKE_MATCH_2}")
    set(what "${CMAKE_MATCH_3}")
    if(kind STREQUAL "command")
      find_program(found NAMES "${what}" NO_CACHE)
      if(NOT found)
        list(APPEND packages "${package}")
        list(APPEND watch /usr/bin)
      endif()
      unset(found)
    elseif(kind STREQUAL "file" AND NOT EXISTS "${what}")
      list(APPEND packages "${package}")
      set(folder "${what}")
      while(NOT EXISTS "${folder}")
        get_filename_component(folder "${folder}" DIRECTORY)
      endwhile()
      list(APPEND watch "${folder}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES watch)

  set(LAUNCHLAB_DOXYGEN "${LAUNCHLAB_DOXYGEN}" PARENT_SCOPE)
  set(LAUNCHLAB_SPHINX_BUILD "${LAUNCHLAB_SPHINX_BUILD}" PARENT_SCOPE)
  set(LAUNCHLAB_DOCS_MISSING "${missing}" PARENT_SCOPE)
  set(LAUNCHLAB_DOCS_PACKAGES "${packages}" PARENT_SCOPE)
  set(LAUNCHLAB_DOCS_WATCH "${watch}" PARENT_SCOPE)
  set(LAUNCHLAB_DOCS_VERSIONS "${versions}" PARENT_SCOPE)
endfunction()

# The sentence that says what is missing and what to install.
function(launchlab_docs_tools_message out)
  list(JOIN LAUNCHLAB_DOCS_MISSING "; " missing)
  set(text "the course site cannot be built here, missing: ${missing}.")
  if(LAUNCHLAB_DOCS_PACKAGES)
    list(JOIN LAUNCHLAB_DOCS_PACKAGES " " packages)
    string(APPEND text " Install them with: sudo apt-get install -y ${packages}")
  else()
    string(APPEND text " The Debian packages of packages.txt's docs group are all installed;"
      " the sphinx-build above needs those Python modules.")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# As a script: the docs target of a build tree configured without the tools.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  launchlab_probe_docs_tools("${LAUNCHLAB_SOURCE_DIR}")
  if(LAUNCHLAB_DOCS_MISSING)
    launchlab_docs_tools_message(text)
    message(FATAL_ERROR "launchlab: ${text}")
  endif()
  # Installed since the tree was configured, somewhere the build does not
  # watch: the stamp is one of the configure's inputs, so the next build
  # configures again and has the real docs target.
  file(TOUCH "${LAUNCHLAB_DOCS_STAMP}")
  message(FATAL_ERROR "launchlab: the docs tools are here now (${LAUNCHLAB_DOCS_VERSIONS}), "
    "but this build tree was configured without them. Build the docs again: "
    "the build configures itself first.")
endif()
