# Runs one libFuzzer target for a bounded time on a fresh working corpus:
#   cmake -DFUZZER= -DCORPUS= -DWORK= -DSECONDS= -DMAX_LEN= [-DSEEDER= -DGOLDEN=] [-DDICT=] -P run_fuzz.cmake
# CORPUS (the seeds in the repo, read only) and, with SEEDER, seeds written at test time start the run.
# Fails (with the crashing input's path) if libFuzzer finds anything.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/seeds ${WORK}/artifacts)
if(SEEDER)
  execute_process(COMMAND ${SEEDER} ${WORK}/seeds ${GOLDEN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fuzz: writing the seed corpus failed (${rc})")
  endif()
endif()
set(seed_dirs ${WORK}/seeds)
if(EXISTS ${CORPUS})
  list(APPEND seed_dirs ${CORPUS})
endif()
set(dict_arg "")
if(DICT)
  set(dict_arg -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=${MAX_LEN}
                        -print_final_stats=1 ${dict_arg} -artifact_prefix=${WORK}/artifacts/
                        ${WORK}/corpus ${seed_dirs}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}/artifacts/*)
  message(FATAL_ERROR "fuzz: libFuzzer exited with ${rc}; reproduce with: ${FUZZER} ${found}")
endif()
message(STATUS "fuzz: no crash in ${SECONDS} s")
