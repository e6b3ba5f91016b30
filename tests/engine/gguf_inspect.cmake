# trit-cli inspect: a loadable verdict (exit 0) on golden-a, and a precise "not loadable" verdict (exit 1)
# on a truncated copy made at test time and on a file that is not GGUF at all.
set(_golden_a ${TRIT_SHARED_DIR}/golden/golden-a.gguf)
add_test(NAME cli_inspect_golden_a COMMAND $<TARGET_FILE:trit-cli> inspect ${_golden_a})
set_tests_properties(cli_inspect_golden_a PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "blk\\.2\\.ffn_down\\.weight +I2_S +\\[1408, 512\\].*totals: 35 tensors.*verdict: loadable \\(bitnet-25, 3 layers, dim 512, heads 4/1, head_dim 128, ffn 1408, vocab 1003, context 4096")

# PASS_REGULAR_EXPRESSION ignores the exit code, so the shell checks that inspect exited with 1.
set(_trunc ${CMAKE_BINARY_DIR}/test-tmp/cli_inspect_truncated.gguf)
add_test(NAME cli_inspect_truncated
         COMMAND sh -c "head -c 2000000 \"$1\" > \"$2\" && \"$0\" inspect \"$2\"; echo \"exit=$?\""
                 $<TARGET_FILE:trit-cli> ${_golden_a} ${_trunc})
set_tests_properties(cli_inspect_truncated PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "verdict: not loadable: [^\n]*truncated file: tensor 'blk\\.1\\.ffn_gate\\.weight' data \\([0-9]+ bytes at offset [0-9]+\\) runs past the end of the file \\(size 2000000\\)\nexit=1")

add_test(NAME cli_inspect_not_gguf COMMAND $<TARGET_FILE:trit-cli> inspect ${TRIT_SHARED_DIR}/golden/README.md)
set_tests_properties(cli_inspect_not_gguf PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli" WILL_FAIL TRUE)

# A FIFO named like a model: inspect must refuse it at once (it used to block forever waiting for a
# writer). TIMEOUT turns a hang into a failure.
set(_fifo ${CMAKE_BINARY_DIR}/test-tmp/cli_inspect_fifo.gguf)
add_test(NAME cli_inspect_fifo
         COMMAND sh -c "rm -f \"$1\" && mkfifo \"$1\" && \"$0\" inspect \"$1\"; echo \"exit=$?\"; rm -f \"$1\""
                 $<TARGET_FILE:trit-cli> ${_fifo})
set_tests_properties(cli_inspect_fifo PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli" TIMEOUT 20
  PASS_REGULAR_EXPRESSION "verdict: not loadable: '[^\n]*cli_inspect_fifo\\.gguf' is not a regular file \\(it is a FIFO \\(named pipe\\)\\)[^\n]*\nexit=1")
