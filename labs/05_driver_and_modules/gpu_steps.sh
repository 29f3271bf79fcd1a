# What autograder/gpu-run.sh does for 05_driver_and_modules beyond the tests:
# the chapter's measurement at 12 trials per configuration in every test run,
# and every sample of the reference program's as
# gpu-report/05_driver_and_modules-cold_start.csv (config,trial,quantity,value).
gpu_test_env=(LAUNCHLAB_COLD_START_TRIALS=12)
gpu_reference_env=("LAUNCHLAB_COLD_START_CSV=$stage/gpu-report/$slug-cold_start.csv")
