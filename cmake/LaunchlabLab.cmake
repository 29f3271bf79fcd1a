# launchlab_add_lab(): the one call a lab's CMakeLists.txt makes.
#
#   launchlab_add_lab([LINK_LIBRARIES <targets>...] [USES_LABS <slug>...])
#
# USES_LABS names earlier labs whose code this one builds on (06_channels
# runs its QMDs through 07_qmd's decoder): each tree links the same tree of
# those labs, so a learner's lab uses the learner's own earlier work.
#
# The slug is the lab folder's name and is written nowhere else: the targets,
# the CTest names and labels, the tests folder (autograder/tests/<slug>) and
# the solution overlay (solutions/<slug>) all derive from it. lab.toml names
# the student files and the graded tests; this function reads those two facts
# from it so that they are not repeated here.
#
# For each tree (the learner's files, and the solution overlay) it builds
#   lab_<slug>[_solution]        a library of the lab's sources
#   test_<slug>[_solution]       the lab's GoogleTest tests linked against it
# and registers every test of lab.toml in CTest as
#   <slug>/<starter|solution>/<Suite.Name>
# labelled <slug>, starter or solution, and gpu or cpu.

function(_launchlab_read_lab_toml toml_path out_student_files out_tests out_gpu_tests)
  file(READ "${toml_path}" content)
  string(REGEX MATCH "\nstudent_files[ \t]*=[ \t]*\\[([^]]*)\\]" _ "\n${content}")
  if(NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "${toml_path}: no student_files = [...] line")
  endif()
  string(REGEX MATCHALL "\"[^\"]+\"" quoted "${CMAKE_MATCH_1}")
  set(student_files "")
  foreach(item IN LISTS quoted)
    string(REPLACE "\"" "" item "${item}")
    list(APPEND student_files "${item}")
  endforeach()

  # Each [[tests]] table holds a name and optionally needs = ["gpu", ...].
  string(REPLACE "[[tests]]" ";" tables "${content}")
  list(POP_FRONT tables)
  set(tests "")
  set(gpu_tests "")
  foreach(table IN LISTS tables)
    string(REGEX MATCH "name[ \t]*=[ \t]*\"([^\"]+)\"" _ "${table}")
    if(NOT CMAKE_MATCH_1)
      message(FATAL_ERROR "${toml_path}: a [[tests]] table has no name")
    endif()
    set(name "${CMAKE_MATCH_1}")
    list(APPEND tests "${name}")
    if(table MATCHES "needs[ \t]*=[ \t]*\\[[^]]*\"gpu\"")
      list(APPEND gpu_tests "${name}")
    endif()
  endforeach()
  set(${out_student_files} "${student_files}" PARENT_SCOPE)
  set(${out_tests} "${tests}" PARENT_SCOPE)
  set(${out_gpu_tests} "${gpu_tests}" PARENT_SCOPE)
endfunction()

function(_launchlab_add_tree slug tree sources link_libraries used_labs tests gpu_tests)
  if(tree STREQUAL "solution")
    set(suffix "_solution")
  else()
    set(suffix "")
  endif()
  set(lib "lab_${slug}${suffix}")
  set(exe "test_${slug}${suffix}")

  add_library(${lib} STATIC ${sources})
  target_include_directories(${lib} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lib} PUBLIC ${link_libraries})
  # A lab may build on a later-numbered one (06 on 07), so the target need
  # not exist yet: labs/CMakeLists.txt checks every use once all are added.
  foreach(used IN LISTS used_labs)
    set_property(GLOBAL APPEND PROPERTY LAUNCHLAB_USED_LABS "${slug}:${used}")
    target_link_libraries(${lib} PUBLIC lab_${used}${suffix})
  endforeach()
  set_target_properties(${lib} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)

  add_executable(${exe})
  target_link_libraries(${exe} PRIVATE lab_${slug}_test_objects ${lib} launchlab_test_support)
  set_target_properties(${exe} PROPERTIES LINKER_LANGUAGE CXX)
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/tests")

  if(tree STREQUAL "solution" OR LAUNCHLAB_LEARNER_TREE STREQUAL "solutions")
    set(label "solution")
  else()
    set(label "starter")
  endif()
  foreach(test IN LISTS tests)
    set(ctest_name "${slug}/${label}/${test}")
    add_test(NAME "${ctest_name}" COMMAND ${exe} "--gtest_filter=${test}")
    if(test IN_LIST gpu_tests)
      set(kind gpu)
    else()
      set(kind cpu)
    endif()
    set_tests_properties("${ctest_name}" PROPERTIES
      LABELS "${slug};${label};${kind}"
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
      TIMEOUT 300)
  endforeach()
endfunction()

function(launchlab_add_lab)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LINK_LIBRARIES;USES_LABS")
  get_filename_component(slug "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT slug MATCHES "^[0-9][0-9]_[a-z0-9_]+$")
    message(FATAL_ERROR "lab folder '${slug}' is not a slug of the form NN_words")
  endif()

  set(toml "${CMAKE_CURRENT_SOURCE_DIR}/lab.toml")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${toml}")
  _launchlab_read_lab_toml("${toml}" student_files tests gpu_tests)

  set(tests_dir "${PROJECT_SOURCE_DIR}/autograder/tests/${slug}")
  file(GLOB test_sources CONFIGURE_DEPENDS "${tests_dir}/*.cpp" "${tests_dir}/*.cu")
  if(NOT test_sources)
    message(FATAL_ERROR "${slug}: no tests in ${tests_dir}")
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

  # The tests are compiled once and linked into each tree's program: only
  # the lab's own sources differ between the trees.
  set(test_objects lab_${slug}_test_objects)
  add_library(${test_objects} OBJECT ${test_sources})
  target_include_directories(${test_objects} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(used IN LISTS arg_USES_LABS)
    target_include_directories(${test_objects} PRIVATE "${PROJECT_SOURCE_DIR}/labs/${used}")
  endforeach()
  target_link_libraries(${test_objects} PRIVATE launchlab_test_support ${arg_LINK_LIBRARIES})
  set_target_properties(${test_objects} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)

  _launchlab_add_tree(${slug} learner "${learner_sources}"
    "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" "${tests}" "${gpu_tests}")
  if(LAUNCHLAB_WITH_SOLUTIONS AND NOT LAUNCHLAB_LEARNER_TREE STREQUAL "solutions")
    _launchlab_add_tree(${slug} solution "${solution_sources}"
      "${arg_LINK_LIBRARIES}" "${arg_USES_LABS}" "${tests}" "${gpu_tests}")
  endif()
  set_property(GLOBAL APPEND PROPERTY LAUNCHLAB_SLUGS "${slug}")
endfunction()
