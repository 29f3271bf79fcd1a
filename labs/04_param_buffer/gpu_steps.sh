# What autograder/gpu-run.sh does for 04_param_buffer beyond the tests: the
# "csv," lines of the reference program's run (cuFuncGetParamInfo for every
# echo kernel, and cuLaunchKernel's answer to each buffer size) as
# gpu-report/04_param_buffer-data.csv.
gpu_after_tests() {
  {
    made_by "the lines starting with csv, of the reference program's ParamInfoOnGpu.* and EchoOnGpu.*"
    echo "record,kernel,index,name,offset,size,answer"
    grep '^csv,' "$stage/reference-output.txt" | cut -d, -f2-
  } > "$stage/gpu-report/$slug-data.csv"
}
