# The GGUF fuzzer: libFuzzer + ASan + UBSan need clang, while the project builds with gcc, so the fuzz
# target is compiled by a custom command calling clang++ directly on the reader's sources (they depend on
# nothing but the C++ runtime). The seed corpus is generated at test time by gguf_fuzz_seeds (gcc).
# The test runs for TRIT_GGUF_FUZZ_SECONDS (60) under the label "fuzz".
set(TRIT_GGUF_FUZZ_SECONDS 60 CACHE STRING "How long the gguf_fuzz test fuzzes")
find_program(TRIT_CLANGXX NAMES clang++-14 clang++)

set(_fuzz_ok FALSE)
if(TRIT_CLANGXX)
  # Probe once that this clang can link a libFuzzer binary (libclang-rt-dev present).
  set(_probe_dir ${CMAKE_CURRENT_BINARY_DIR}/gguf_fuzz_probe)
  file(WRITE ${_probe_dir}/probe.cpp
       "#include <cstdint>\n#include <cstddef>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
  execute_process(COMMAND ${TRIT_CLANGXX} -fsanitize=fuzzer,address,undefined ${_probe_dir}/probe.cpp -o ${_probe_dir}/probe
                  RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(_probe_rc EQUAL 0)
    set(_fuzz_ok TRUE)
  endif()
endif()

if(NOT _fuzz_ok)
  message(WARNING "gguf fuzz: clang++ with libFuzzer not found (install clang and libclang-rt-dev); the gguf_fuzz test is not built")
else()
  file(GLOB _gguf_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/engine/src/gguf/*.cpp)
  set(_fuzz_src ${PROJECT_SOURCE_DIR}/tests/fuzz/gguf_fuzz.cpp)
  set(_fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz/gguf_fuzz)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  add_custom_command(
    OUTPUT ${_fuzz_bin}
    COMMAND ${TRIT_CLANGXX} -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -I${PROJECT_SOURCE_DIR}/engine/include -I${PROJECT_SOURCE_DIR}/engine/src
            -MD -MF ${_fuzz_bin}.d ${_fuzz_src} ${_gguf_srcs} -o ${_fuzz_bin}
    DEPENDS ${_fuzz_src} ${_gguf_srcs}
    DEPFILE ${_fuzz_bin}.d
    COMMENT "Building the libFuzzer target gguf_fuzz with clang++"
    VERBATIM)
  add_custom_target(gguf_fuzz ALL DEPENDS ${_fuzz_bin})

  add_executable(gguf_fuzz_seeds ${PROJECT_SOURCE_DIR}/tests/fuzz/make_seeds.cpp)
  target_include_directories(gguf_fuzz_seeds PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  trit_set_warnings(gguf_fuzz_seeds)

  add_test(NAME gguf_fuzz
           COMMAND ${CMAKE_COMMAND} -DFUZZER=${_fuzz_bin} -DSEEDER=$<TARGET_FILE:gguf_fuzz_seeds>
                   -DGOLDEN=${TRIT_SHARED_DIR}/golden/golden-a.gguf -DDICT=${PROJECT_SOURCE_DIR}/tests/fuzz/gguf.dict
                   -DWORK=${CMAKE_BINARY_DIR}/test-tmp/gguf_fuzz -DSECONDS=${TRIT_GGUF_FUZZ_SECONDS}
                   -P ${PROJECT_SOURCE_DIR}/tests/fuzz/run_fuzz.cmake)
  set_tests_properties(gguf_fuzz PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "fuzz"
                       TIMEOUT 240 FAIL_REGULAR_EXPRESSION "ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error:")
endif()
