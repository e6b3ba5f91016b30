# trit-cli generate end to end on the CPU backend (the Vulkan backend has its own tests).
set(_golden_a "${TRIT_SHARED_DIR}/golden/golden-a.gguf")
add_test(NAME cli_generate_streams_and_reports_stats
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt "The quick brown fox" --temp 0 --max-tokens 8)
set_tests_properties(cli_generate_streams_and_reports_stats PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "\\[cpu, fp32\\] prompt [0-9]+ tokens \\(0 reused\\).*generated 8 tokens.*finish: length")
add_test(NAME cli_generate_chat_with_system_prompt
         COMMAND trit-cli generate ${_golden_a} --backend cpu --system "Be brief." --chat "Hi" --temp 0.7 --seed 7 --max-tokens 4)
set_tests_properties(cli_generate_chat_with_system_prompt PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "generated [1-4] tokens")
add_test(NAME cli_generate_rejects_unknown_option
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt x --temperature 1)
set_tests_properties(cli_generate_rejects_unknown_option PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "unknown option '--temperature'")
add_test(NAME cli_generate_reports_full_context
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt "a long enough prompt" --ctx 8)
set_tests_properties(cli_generate_reports_full_context PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "context of 8 tokens is full")
# The statistics line names the precision: fp32 by default, f64 when asked (the CPU reference too).
add_test(NAME cli_generate_precision_f64
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt "The quick brown fox" --temp 0 --max-tokens 2 --precision f64)
set_tests_properties(cli_generate_precision_f64 PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "\\[cpu, f64\\] prompt [0-9]+ tokens")
