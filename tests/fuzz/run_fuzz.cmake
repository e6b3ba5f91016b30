# Runs the GGUF fuzzer for a bounded time on a fresh corpus: cmake -DFUZZER= -DSEEDER= -DGOLDEN= -DDICT=
# -DWORK= -DSECONDS= -P run_fuzz.cmake. Fails (with the crashing input's path) if libFuzzer finds anything.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/seeds ${WORK}/artifacts)
execute_process(COMMAND ${SEEDER} ${WORK}/seeds ${GOLDEN} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gguf fuzz: writing the seed corpus failed (${rc})")
endif()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=65536
                        -print_final_stats=1 -dict=${DICT} -artifact_prefix=${WORK}/artifacts/
                        ${WORK}/corpus ${WORK}/seeds
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}/artifacts/*)
  message(FATAL_ERROR "gguf fuzz: libFuzzer exited with ${rc}; reproduce with: ${FUZZER} ${found}")
endif()
message(STATUS "gguf fuzz: no crash in ${SECONDS} s")
