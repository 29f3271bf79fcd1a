# launchlab_add_lab(): the one call a lab's CMakeLists.txt makes.
#
#   launchlab_add_lab([LINK_LIBRARIES <targets>...] [USES_LABS <slug>...] [EMBED <file>...])
#
# EMBED names files of the lab folder that the lab's code reads as data (lab
# 07's headers and fixtures): they are compiled into the lab's library, so
# that a test run or a tool finds them wherever it runs, and the lab's code
# gets each one's bytes from
#   std::string_view launchlab::lab_files::lab_<slug>(std::string_view path)
# (the path as EMBED names it; empty for a path it does not name).
#
# USES_LABS names earlier labs whose code this one builds on (06_channels
# runs its QMDs through 07_qmd's decoder): each tree links the same tree of
# those labs, so a learner's lab uses the learner's own earlier work.
#
# The slug is the lab folder's name and is written nowhere else: the targets,
# the CTest names and labels, the tests folder (autograder/tests/<slug>) and
# the solution overlay (solutions/<slug>) all derive from it. lab.toml names
# the student files and the graded tests; this function takes those facts
# from the course model (below) so that they are not repeated here.
#
# The tests are compiled twice (launchlab/record.h says why): the exercise
# build, which holds no expected values, and the reference build. It builds
#   lab_<slug>[_solution]        a library of the lab's sources, per tree
#   test_<slug>                  exercise build + the learner's files
#   test_<slug>_solution         exercise build + the solutions
#   reference_<slug>             reference build + the solutions
# and registers every test of lab.toml in CTest as
#   <slug>/solution/<Suite.Name>  (the reference program)
# labelled <slug>, solution, and gpu or cpu; GPU tests hold the CTest
# resource lock "gpu", so that they run one at a time.

# ---- The lab facts, from the course model -----------------------------------
#
# lab.toml is read by the course model alone (autograder/course, through
# toml++), never here. When the course is configured, the model's sources are
# compiled into a small program (launchlab-course-facts) that checks every
# lab.toml and writes, into <build>/course/:
#
#   course.json       {"slugs": ["00_vadd_journey", ...],
#                      "labs": {"00_vadd_journey": {"number": "00", "title": ..., "summary": ...,
#                               "gpu": "no"|"partly"|"yes", "student_files": [...],
#                               "tests": [{"name": ..., "points": ..., "needs": [...]}, ...],
#                               "timeout_seconds": ..., "test_timeout_seconds": ...}, ...}}
#   chapter-table.md  the chapter table of the site's home page (docs/conf.py)
#
# CMake reads course.json with string(JSON). A change to a lab.toml, a new lab
# or a change to the model configures the course again; a lab.toml that breaks
# a rule stops the configure with the file, the line and what is wrong. A
# graded tree's learner part takes the trusted part's course.json, which the
# grader lays out with the exercise objects: the same committed lab.toml
# files, read once.
#
# toml++ is found by LaunchlabThirdParty.cmake (LAUNCHLAB_toml_INCLUDE_DIR).
set(LAUNCHLAB_COURSE_MODEL_DIR "${CMAKE_CURRENT_LIST_DIR}/../autograder/course")
cmake_path(NORMAL_PATH LAUNCHLAB_COURSE_MODEL_DIR)
set(LAUNCHLAB_COURSE_MODEL_SOURCES
  "${LAUNCHLAB_COURSE_MODEL_DIR}/model.cpp"
  "${LAUNCHLAB_COURSE_MODEL_DIR}/tables.cpp")

# Builds the facts program when it is missing or older than the model, runs
# it, and keeps course.json's text in the global property LAUNCHLAB_COURSE.
function(launchlab_read_course)
  get_property(done GLOBAL PROPERTY LAUNCHLAB_COURSE SET)
  if(done)
    return()
  endif()
  if(LAUNCHLAB_GRADED_PART STREQUAL "learner")
    file(READ "${LAUNCHLAB_EXERCISE_DIR}/course.json" course)
    set_property(GLOBAL PROPERTY LAUNCHLAB_COURSE "${course}")
    return()
  endif()
  set(out "${PROJECT_BINARY_DIR}/course")
  set(program "${out}/launchlab-course-facts")
  file(GLOB headers "${LAUNCHLAB_COURSE_MODEL_DIR}/include/launchlab/course/*.h")
  set(sources ${LAUNCHLAB_COURSE_MODEL_SOURCES} "${LAUNCHLAB_COURSE_MODEL_DIR}/facts.cpp")
  file(GLOB lab_tomls CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/labs/*/lab.toml")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${sources} ${headers} ${lab_tomls})

  set(stale FALSE)
  foreach(input IN LISTS sources headers)
    if(NOT EXISTS "${program}" OR "${input}" IS_NEWER_THAN "${program}")
      set(stale TRUE)
    endif()
  endforeach()
  if(stale)
    message(STATUS "launchlab: building the course model's facts program")
    file(MAKE_DIRECTORY "${out}")
    set(include_toml "")
    if(NOT LAUNCHLAB_toml_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      set(include_toml -isystem "${LAUNCHLAB_toml_INCLUDE_DIR}")
    endif()
    # One compile a source, all at once (execute_process runs its commands
    # side by side) and each one a compiler launcher can cache, then a link:
    # this is the first configure's longest step.
    set(compiles "")
    set(objects "")
    foreach(source IN LISTS sources)
      cmake_path(GET source STEM stem)
      list(APPEND objects "${out}/${stem}.o")
      list(APPEND compiles COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} "${CMAKE_CXX_COMPILER}" -std=c++20 -O0
        -I "${LAUNCHLAB_COURSE_MODEL_DIR}/include" ${include_toml} -c "${source}" -o "${out}/${stem}.o")
    endforeach()
    execute_process(${compiles} RESULTS_VARIABLE statuses OUTPUT_VARIABLE log ERROR_VARIABLE log)
    foreach(status IN LISTS statuses)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "launchlab: the course model did not compile:\n${log}")
      endif()
    endforeach()
    execute_process(
      COMMAND "${CMAKE_CXX_COMPILER}" ${objects} -o "${program}.new"
      RESULT_VARIABLE status
      OUTPUT_VARIABLE log
      ERROR_VARIABLE log)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "launchlab: the course model did not link:\n${log}")
    endif()
    file(RENAME "${program}.new" "${program}")
  endif()

  execute_process(
    COMMAND "${program}" "${PROJECT_SOURCE_DIR}" "${out}"
    RESULT_VARIABLE status
    ERROR_VARIABLE problems)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "launchlab: the course does not read cleanly:\n${problems}")
  endif()
  file(READ "${out}/course.json" course)
  set_property(GLOBAL PROPERTY LAUNCHLAB_COURSE "${course}")
endfunction()

# The strings of a JSON array: _launchlab_json_strings(out json key...).
function(_launchlab_json_strings out json)
  string(JSON count LENGTH "${json}" ${ARGN})
  set(items "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(index RANGE ${last})
      string(JSON item GET "${json}" ${ARGN} ${index})
      list(APPEND items "${item}")
    endforeach()
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# The slugs of every lab, in order.
function(launchlab_course_slugs out)
  launchlab_read_course()
  get_property(course GLOBAL PROPERTY LAUNCHLAB_COURSE)
  _launchlab_json_strings(slugs "${course}" slugs)
  set(${out} "${slugs}" PARENT_SCOPE)
endfunction()

# What the build needs of one lab: its student files, its tests, those of
# its tests that need a GPU, and those that measure time.
function(_launchlab_lab_facts slug out_student_files out_tests out_gpu_tests out_measuring_tests)
  launchlab_read_course()
  get_property(course GLOBAL PROPERTY LAUNCHLAB_COURSE)
  string(JSON lab ERROR_VARIABLE missing GET "${course}" labs "${slug}")
  if(missing)
    message(FATAL_ERROR "${slug}: not a lab of the course (a lab is a folder of labs/ with a lab.toml, named by its slug)")
  endif()
  _launchlab_json_strings(student_files "${lab}" student_files)
  set(tests "")
  set(gpu_tests "")
  set(measuring_tests "")
  string(JSON count LENGTH "${lab}" tests)
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${last})
    string(JSON name GET "${lab}" tests ${index} name)
    _launchlab_json_strings(needs "${lab}" tests ${index} needs)
    list(APPEND tests "${name}")
    if("gpu" IN_LIST needs)
      list(APPEND gpu_tests "${name}")
    endif()
    string(JSON measures GET "${lab}" tests ${index} measures)
    if(measures)
      list(APPEND measuring_tests "${name}")
    endif()
  endforeach()
  set(${out_student_files} "${student_files}" PARENT_SCOPE)
  set(${out_tests} "${tests}" PARENT_SCOPE)
  set(${out_gpu_tests} "${gpu_tests}" PARENT_SCOPE)
  set(${out_measuring_tests} "${measuring_tests}" PARENT_SCOPE)
endfunction()

# One library of the lab's sources for a tree (the learner's files, or the
# solution overlay).
function(_launchlab_add_lab_library slug lib sources link_libraries used_labs suffix)
  add_library(${lib} STATIC ${sources})
  target_include_directories(${lib} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lib} PUBLIC launchlab_given ${link_libraries})
  # A lab may build on a later-numbered one (06 on 07), so the target need
  # not exist yet: labs/CMakeLists.txt checks every use once all are added.
  foreach(used IN LISTS used_labs)
    set_property(GLOBAL APPEND PROPERTY LAUNCHLAB_USED_LABS "${slug}:${used}")
    target_link_libraries(${lib} PUBLIC lab_${used}${suffix})
  endforeach()
  set_target_properties(${lib} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
endfunction()

# Links a test program: the course's parts first and whole (the test
# support, its records and GoogleTest), then one tree's library. First, so
# that an inline or template function both sides instantiate resolves to
# the course's copy; whole, so that a second strong definition of one of
# their names fails the link instead of taking an archive member's place.
function(_launchlab_link_test_program exe side lib link_libraries)
  target_link_libraries(${exe} PRIVATE
    "$<LINK_LIBRARY:WHOLE_ARCHIVE,launchlab_test_support_${side}>"
    "$<LINK_LIBRARY:WHOLE_ARCHIVE,launchlab_records>"
    "$<LINK_LIBRARY:WHOLE_ARCHIVE,GTest::gtest>"
    ${lib} ${link_libraries})
  set_target_properties(${exe} PROPERTIES LINKER_LANGUAGE CXX
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")
endfunction()

# Before the learner's exercise program is linked, refuses the learner's
# objects (the lab's library and those of the labs it uses) that define a
# name of the support, GoogleTest or the lab's tests (tests_list: their
# objects, one a line): a learner's recorder would otherwise be what every
# test calls (autograder/support/symbol_guard.cpp).
function(_launchlab_guard_course_code exe learner_libs tests_list)
  set(learner_files "")
  foreach(lib IN LISTS learner_libs)
    list(APPEND learner_files --learner "$<TARGET_FILE:${lib}>")
  endforeach()
  add_custom_command(TARGET ${exe} PRE_LINK
    COMMAND launchlab_symbol_guard ${learner_files}
      --support "$<TARGET_FILE:launchlab_test_support_exercise>"
      --support "$<TARGET_FILE:launchlab_records>"
      --googletest "$<TARGET_FILE:GTest::gtest>"
      --tests-list "${tests_list}"
    COMMENT "Checking that ${exe}'s lab files define none of the course's names"
    VERBATIM)
endfunction()

# A test program: the lab's tests compiled one way (exercise or reference)
# linked with one tree's library.
# The objects come as sources, not by linking their library, which would
# bring the support a second time without its WHOLE_ARCHIVE.
function(_launchlab_add_test_program exe side test_objects lib link_libraries)
  add_executable(${exe} $<TARGET_OBJECTS:${test_objects}>)
  _launchlab_link_test_program(${exe} ${side} ${lib} "${link_libraries}")
endfunction()

# The lab's tests as object files, in the exercise build (no expected
# values, for the learner's program) or the reference build (records carry
# and check the expected values, for the solutions' program).
function(_launchlab_add_test_objects slug name test_sources link_libraries used_labs exercise)
  add_library(${name} OBJECT ${test_sources})
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(used IN LISTS used_labs)
    target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/labs/${used}")
  endforeach()
  set(side reference)
  if(exercise)
    set(side exercise)
  endif()
  # The tests use the labs' given headers too (launchlab/bytes.h, launchlab/cuda.h).
  target_link_libraries(${name} PRIVATE launchlab_test_support_${side} launchlab_given ${link_libraries})
  set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  # The side's precompiled GoogleTest and record headers (autograder/support).
  target_precompile_headers(${name} REUSE_FROM launchlab_test_headers_${side})
  target_compile_options(${name} PRIVATE $<TARGET_PROPERTY:launchlab_test_headers_${side},INTERFACE_COMPILE_OPTIONS>)
endfunction()

# Writes <build>/embedded_files.cpp, the files EMBED named as byte arrays,
# and returns its path (the configure runs again when one of them changes).
function(_launchlab_embed_files slug files out)
  set(arrays "")
  set(lookups "")
  set(index 0)
  foreach(file IN LISTS files)
    set(path "${CMAKE_CURRENT_SOURCE_DIR}/${file}")
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "${slug}: EMBED names ${file}, which is not in the lab folder")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
    file(READ "${path}" bytes HEX)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${bytes}")
    # A trailing zero keeps an empty file's array legal; the size leaves it out.
    string(APPEND arrays "const unsigned char file${index}[] = {${bytes}0};\n")
    string(APPEND lookups "  if (path == \"${file}\") return {reinterpret_cast<const char*>(file${index}), sizeof file${index} - 1};\n")
    math(EXPR index "${index} + 1")
  endforeach()
  set(source "${CMAKE_CURRENT_BINARY_DIR}/embedded_files.cpp")
  file(CONFIGURE OUTPUT "${source}" @ONLY CONTENT
"// Generated by launchlab_add_lab(EMBED ...) from labs/${slug}/: do not edit.
#include <string_view>

namespace launchlab::lab_files {
namespace {
${arrays}}  // namespace

std::string_view lab_${slug}(std::string_view path) {
${lookups}  return {};
}

}  // namespace launchlab::lab_files
")
  set(${out} "${source}" PARENT_SCOPE)
endfunction()

# A test that runs the course's linter (autograder/cli/lint.h) with
# `arguments`; `uses_gpu` (a lab's GPU tests) makes it hold the GPU's lock,
# since it runs the lab's programs, and `measures` (a lab's tests that
# measure time) makes it run alone (_launchlab_run_alone says why).
function(launchlab_add_lint_test name arguments uses_gpu measures)
  add_test(NAME "${name}" COMMAND launchlab_cli lint ${arguments})
  set_tests_properties("${name}" PROPERTIES LABELS "course" TIMEOUT 1800
    ENVIRONMENT "LAUNCHLAB_ROOT=${PROJECT_SOURCE_DIR};LAUNCHLAB_BUILD_DIR=${PROJECT_BINARY_DIR}")
  if(uses_gpu)
    set_tests_properties("${name}" PROPERTIES RESOURCE_LOCK gpu)
  endif()
  if(measures)
    _launchlab_run_alone("${name}")
  endif()
endfunction()

# A CTest test that measures time runs with no other test beside it. The
# grader keeps cores for such runs that no grading's other work takes
# (gpu_turns.h); CTest's other tests know nothing of them, and lab 09's
# waits, measured on those cores beside a busy `check`, returned before
# their watching thread could run to see the kernel's flag.
function(_launchlab_run_alone name)
  set_tests_properties("${name}" PROPERTIES RUN_SERIAL TRUE)
endfunction()

function(launchlab_add_lab)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LINK_LIBRARIES;USES_LABS;EMBED")
  get_filename_component(slug "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  _launchlab_lab_facts("${slug}" student_files tests gpu_tests measuring_tests)

  # The graded tree's learner part never sees the tests: it links the
  # exercise build's objects that the trusted part compiled.
  set(tests_dir "${PROJECT_SOURCE_DIR}/autograder/tests/${slug}")
  if(NOT LAUNCHLAB_GRADED_PART STREQUAL "learner")
    file(GLOB test_sources CONFIGURE_DEPENDS "${tests_dir}/*.cpp" "${tests_dir}/*.cu")
    if(NOT test_sources)
      message(FATAL_ERROR "${slug}: no tests in ${tests_dir}")
    endif()
  endif()

  file(GLOB lab_sources CONFIGURE_DEPENDS
    RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
    "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp" "${CMAKE_CURRENT_SOURCE_DIR}/*.cu")

  # The learner's tree: every source in the lab folder, with the student files
  # taken from solutions/ in the reference build.
  set(learner_sources "")
  set(solution_sources "")
  foreach(source IN LISTS lab_sources)
    set(from_lab "${CMAKE_CURRENT_SOURCE_DIR}/${source}")
    set(from_solution "${PROJECT_SOURCE_DIR}/solutions/${slug}/${source}")
    if(source IN_LIST student_files)
      if(NOT EXISTS "${from_solution}" AND (LAUNCHLAB_WITH_SOLUTIONS OR LAUNCHLAB_LEARNER_TREE STREQUAL "solutions"))
        message(FATAL_ERROR "${slug}: student file ${source} has no solution in solutions/${slug}")
      endif()
      list(APPEND solution_sources "${from_solution}")
      if(LAUNCHLAB_LEARNER_TREE STREQUAL "solutions")
        list(APPEND learner_sources "${from_solution}")
      else()
        list(APPEND learner_sources "${from_lab}")
      endif()
    else()
      list(APPEND learner_sources "${from_lab}")
      list(APPEND solution_sources "${from_lab}")
    endif()
  endforeach()
  if(arg_EMBED)
    _launchlab_embed_files("${slug}" "${arg_EMBED}" embedded)
    list(APPEND learner_sources "${embedded}")
    list(APPEND solution_sources "${embedded}")
  endif()

  # The learner's program (test_<slug>) runs the exercise build of the tests
  # on the learner's files; the reference program (reference_<slug>) runs the
  # reference build on the solutions, and is what the judge compares with.
  # test_<slug>_solution, the exercise build on the solutions, proves that
  # the judge gives the solutions full marks.
  set(learner_lib lab_${slug})
  # Every library of learner's code the program links: the lab's and those of the labs it uses.
  set(learner_libs ${learner_lib})
  foreach(used IN LISTS arg_USES_LABS)
    list(APPEND learner_libs lab_${used})
  endforeach()
  if(LAUNCHLAB_GRADED_PART STREQUAL "learner")
    _launchlab_add_lab_library(${slug} ${learner_lib} "${learner_sources}" "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" "")
    # A lab that is only built on (07 under 06) has no objects here.
    set(objects_list "${LAUNCHLAB_EXERCISE_DIR}/${slug}.objects")
    if(NOT EXISTS "${objects_list}")
      return()
    endif()
    file(STRINGS "${objects_list}" exercise_objects)
    add_executable(test_${slug} ${exercise_objects})
    _launchlab_link_test_program(test_${slug} exercise ${learner_lib} "${arg_LINK_LIBRARIES}")
    _launchlab_guard_course_code(test_${slug} "${learner_libs}" "${objects_list}")
    set_property(GLOBAL APPEND PROPERTY LAUNCHLAB_SLUGS "${slug}")
    return()
  endif()
  _launchlab_add_test_objects(${slug} lab_${slug}_exercise_tests "${test_sources}"
    "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" ON)
  # The exercise build's objects, listed one a line: what the learner part
  # links (the grader copies them where the learner's build can read them),
  # and what the symbol check holds the learner's objects against.
  set(objects_list "${CMAKE_BINARY_DIR}/exercise/${slug}.objects")
  file(GENERATE OUTPUT "${objects_list}"
    CONTENT "$<JOIN:$<TARGET_OBJECTS:lab_${slug}_exercise_tests>,\n>\n")
  if(NOT LAUNCHLAB_GRADED_PART STREQUAL "trusted")
    _launchlab_add_lab_library(${slug} ${learner_lib} "${learner_sources}" "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" "")
    _launchlab_add_test_program(test_${slug} exercise lab_${slug}_exercise_tests ${learner_lib} "${arg_LINK_LIBRARIES}")
    _launchlab_guard_course_code(test_${slug} "${learner_libs}" "${objects_list}")
  endif()

  set(with_solutions OFF)
  if(LAUNCHLAB_WITH_SOLUTIONS OR LAUNCHLAB_LEARNER_TREE STREQUAL "solutions")
    set(with_solutions ON)
  endif()
  if(with_solutions)
    if(LAUNCHLAB_LEARNER_TREE STREQUAL "solutions")
      set(solution_lib ${learner_lib})
    else()
      set(solution_lib lab_${slug}_solution)
      _launchlab_add_lab_library(${slug} ${solution_lib} "${solution_sources}" "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" "_solution")
      if(NOT LAUNCHLAB_GRADED_PART)
        _launchlab_add_test_program(test_${slug}_solution exercise lab_${slug}_exercise_tests ${solution_lib}
          "${arg_LINK_LIBRARIES}")
      endif()
    endif()
    _launchlab_add_test_objects(${slug} lab_${slug}_reference_tests "${test_sources}"
      "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" OFF)
    _launchlab_add_test_program(reference_${slug} reference lab_${slug}_reference_tests ${solution_lib}
      "${arg_LINK_LIBRARIES}")

    # The reference program checks every expected value in-process: one CTest
    # test per graded test, <slug>/solution/<Suite.Name>. GPU tests share one
    # lock, so that no two of them (timing tests above all) share the GPU.
    foreach(test IN LISTS tests)
      set(ctest_name "${slug}/solution/${test}")
      add_test(NAME "${ctest_name}" COMMAND reference_${slug} "--gtest_filter=${test}")
      if(test IN_LIST gpu_tests)
        set(kind gpu)
      else()
        set(kind cpu)
      endif()
      set_tests_properties("${ctest_name}" PROPERTIES
        LABELS "${slug};solution;${kind}"
        SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
        TIMEOUT 300)
      if(kind STREQUAL "gpu")
        set_tests_properties("${ctest_name}" PROPERTIES RESOURCE_LOCK gpu)
      endif()
      if(test IN_LIST measuring_tests)
        _launchlab_run_alone("${ctest_name}")
      endif()
    endforeach()
  endif()
  # The linter's checks of this lab, a test of its own beside the course's
  # (autograder/cli): only a lab with GPU tests holds the GPU while they run.
  if(TARGET launchlab_cli)
    launchlab_add_lint_test("course/lint/${slug}" "--labs;${slug}" "${gpu_tests}" "${measuring_tests}")
  endif()
  set_property(GLOBAL APPEND PROPERTY LAUNCHLAB_SLUGS "${slug}")
endfunction()
