// The translation unit that launchlab_test_headers_<side> precompiles its
// headers for (autograder/support/CMakeLists.txt); it holds no code.
