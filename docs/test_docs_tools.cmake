# The test docs.tools: the docs target of a build tree configured without the
# tools (docs/docs_tools.cmake run as a script) names the Debian packages to
# install while they are missing, and once they are here, asks for the
# reconfigure instead of failing on a stale answer.
#
#   cmake -DLAUNCHLAB_DOCS_TOOLS=<docs_tools.cmake> -DLAUNCHLAB_SPHINX_BUILD=<a working one>
#         -DLAUNCHLAB_DOXYGEN=<doxygen> -DWORK=<scratch folder> -P docs/test_docs_tools.cmake

cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/course")
# A course whose docs group has one package, not installed yet.
set(module "${WORK}/prefix/lib/launchlab_docs_module")
file(WRITE "${WORK}/course/packages.txt"
  "# group   package                 present when\n"
  "docs      launchlab-docs-package  file:${module}\n")
# A sphinx-build whose Python does not see the installed modules: the
# working one's interpreter, without its site folders.
file(STRINGS "${LAUNCHLAB_SPHINX_BUILD}" shebang LIMIT_COUNT 1)
string(REGEX REPLACE "^#![ \t]*" "" python "${shebang}")
file(WRITE "${WORK}/sphinx-build" "#!/usr/bin/env -i ${python} -S\n")
set(stamp "${WORK}/docs-tools.stamp")

function(probe sphinx out_rc out_text)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" "-DLAUNCHLAB_SOURCE_DIR=${WORK}/course" "-DLAUNCHLAB_DOCS_STAMP=${stamp}"
      "-DLAUNCHLAB_SPHINX_BUILD=${sphinx}" "-DLAUNCHLAB_DOXYGEN=${LAUNCHLAB_DOXYGEN}"
      -P "${LAUNCHLAB_DOCS_TOOLS}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

# CMake wraps a message's lines: the checks read it with its spaces made one.
function(expect_text text wanted what)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${text}")
  string(FIND "${flat}" "${wanted}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "docs.tools: ${what}; the docs target said:\n${text}")
  endif()
endfunction()

# Missing: the target fails, says what is missing and the apt-get line.
probe("${WORK}/sphinx-build" rc text)
if(rc EQUAL 0)
  message(FATAL_ERROR "docs.tools: it succeeded without the tools:\n${text}")
endif()
expect_text("${text}" "Install them with: sudo apt-get install -y launchlab-docs-package"
  "it did not name the package to install")
expect_text("${text}" "No module named 'sphinx'" "it did not say which module sphinx-build lacks")
if(EXISTS "${stamp}")
  message(FATAL_ERROR "docs.tools: it asked for a reconfigure with the tools still missing:\n${text}")
endif()

# Installed since: the target asks for the reconfigure (the stamp is one of
# the configure's inputs) and fails this once.
file(MAKE_DIRECTORY "${module}")
probe("${LAUNCHLAB_SPHINX_BUILD}" rc text)
if(rc EQUAL 0)
  message(FATAL_ERROR "docs.tools: it succeeded without building anything:\n${text}")
endif()
expect_text("${text}" "the docs tools are here now" "it did not say that the tools are here now")
if(NOT EXISTS "${stamp}")
  message(FATAL_ERROR "docs.tools: it did not touch the configure's stamp:\n${text}")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "docs.tools: the package named while missing, the reconfigure asked for once installed")
