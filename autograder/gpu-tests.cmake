# The tests of one lab that need a GPU (lab.toml's `needs`), as a GoogleTest
# filter on standard error, read from the course model's course.json:
#   cmake -DCOURSE=build/gpu/course/course.json -DSLUG=05_driver_and_modules -P autograder/gpu-tests.cmake
# autograder/gpu-run.sh runs the starter's GPU tests with it.
file(READ "${COURSE}" course)
string(JSON count LENGTH "${course}" labs ${SLUG} tests)
set(names "")
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON needs GET "${course}" labs ${SLUG} tests ${i} needs)
    if(needs MATCHES "\"gpu\"")
      string(JSON name GET "${course}" labs ${SLUG} tests ${i} name)
      list(APPEND names "${name}")
    endif()
  endforeach()
endif()
list(JOIN names ":" filter)
message("${filter}")
