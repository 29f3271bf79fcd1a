/// @file
/// The course as the grader sees it: the course model's labs (the model lives
/// in autograder/course, the launchlab_course library, and reads lab.toml).
#pragma once

#include "launchlab/course/model.h"

namespace launchlab::grader {

using course::find_lab;
using course::known_needs;
using course::Lab;
using course::LabTest;
using course::load_course;
using course::load_lab;
using course::read_private_tests;
using course::SanitizerCheck;

}  // namespace launchlab::grader
