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
# A 6-token prompt in a context of 8: the reply runs into the end of the context (a prompt that is itself
# too long is an error of its own, below).
add_test(NAME cli_generate_reports_full_context
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt "a long" --ctx 8)
set_tests_properties(cli_generate_reports_full_context PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "context of 8 tokens is full")
# The statistics line names the precision: fp32 by default, f64 when asked (the CPU reference too).
add_test(NAME cli_generate_precision_f64
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt "The quick brown fox" --temp 0 --max-tokens 2 --precision f64)
set_tests_properties(cli_generate_precision_f64 PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "\\[cpu, f64\\] prompt [0-9]+ tokens")

# Issue 30 #9: a prompt longer than the context is an error with the exact figures and the remedy, exit 1,
# and no statistics line (it used to print "prompt 17 tokens ... = 276940.6 t/s | finish: context_full").
add_test(NAME cli_generate_prompt_longer_than_context
         COMMAND sh -c "\"$0\" generate \"$1\" --backend cpu --prompt 'a long enough prompt' --ctx 8 2>&1; echo \"exit=$?\""
                 $<TARGET_FILE:trit-cli> ${_golden_a})
set_tests_properties(cli_generate_prompt_longer_than_context PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "^trit-cli generate: error: the prompt is 17 tokens but the context holds 8: it is 9 tokens too long\\. Shorten the prompt or use a longer context \\(--ctx, up to the model's 4096 tokens\\)\nexit=1\n$"
  FAIL_REGULAR_EXPRESSION "t/s")

# Issue 30 #10: an empty stop string would end every reply at once; it is refused before the model loads.
add_test(NAME cli_generate_rejects_empty_stop
         COMMAND sh -c "\"$0\" generate \"$1\" --backend cpu --prompt hi --stop '' 2>&1; echo \"exit=$?\""
                 $<TARGET_FILE:trit-cli> ${_golden_a})
set_tests_properties(cli_generate_rejects_empty_stop PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "error: stop string 1 is empty; an empty stop string would end every reply before its first character\nexit=1"
  FAIL_REGULAR_EXPRESSION "t/s")

# Issue 30 #11: an integer too large for 64 bits is out of range, with the range, not "not an integer"
# (the same parser serves every integer option of every command: make-model's --context too).
add_test(NAME cli_generate_seed_out_of_range
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt hi --seed 18446744073709551616)
set_tests_properties(cli_generate_seed_out_of_range PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "--seed: 18446744073709551616 is out of range; it must be between 0 and 9223372036854775807")
add_test(NAME cli_make_model_context_out_of_range
         COMMAND trit-cli make-model ${CMAKE_BINARY_DIR}/test-tmp/never-written.gguf --shape tiny --context=99999999999999999999)
set_tests_properties(cli_make_model_context_out_of_range PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "--context: 99999999999999999999 is out of range; it must be between 1 and 16777216")

# Issue 30 #11: the offset of invalid UTF-8 in --chat counts in what the user typed ("ab\377c": byte 2 of
# 4), not in the templated "User: ab\377c" (it said byte 8 of 10).
add_test(NAME cli_generate_chat_invalid_utf8_offset
         COMMAND sh -c "\"$0\" generate \"$1\" --backend cpu --chat \"$(printf 'ab\\377c')\""
                 $<TARGET_FILE:trit-cli> ${_golden_a})
set_tests_properties(cli_generate_chat_invalid_utf8_offset PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "chat message 0 \\(User\\) is not valid UTF-8 at byte 2 of its 4 bytes")

# Every option takes its value as `--opt value` or `--opt=value`, in every command (one parser, args.cpp):
# the same greedy reply both ways, and make-model, which had a parser of its own, takes --shape=.
add_test(NAME cli_generate_option_forms_agree
         COMMAND sh -c "a=$(\"$0\" generate \"$1\" --backend cpu --prompt 'The quick' --temp 0 --max-tokens 4 --seed 5 --quiet-stats) && b=$(\"$0\" generate \"$1\" --backend=cpu --prompt='The quick' --temp=0 --max-tokens=4 --seed=5 --quiet-stats) && [ -n \"$a\" ] && [ \"$a\" = \"$b\" ] && echo same"
                 $<TARGET_FILE:trit-cli> ${_golden_a})
set_tests_properties(cli_generate_option_forms_agree PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "^same\n$")
add_test(NAME cli_make_model_option_equals_form
         COMMAND trit-cli make-model ${CMAKE_BINARY_DIR}/test-tmp/cli_make_model_equals.gguf --shape=tiny --seed=4 --context=512 --name=eq)
set_tests_properties(cli_make_model_option_equals_form PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "wrote .*cli_make_model_equals\\.gguf: .*shape tiny.*seed 4" FAIL_REGULAR_EXPRESSION "error")

# Issue 27 item 5: golden-c is a llama file without tokenizer.chat_template, a base model: --chat is refused
# by name, with plain generation suggested, and nothing is generated.
add_test(NAME cli_generate_chat_on_base_model
         COMMAND sh -c "\"$0\" generate \"$1\" --backend cpu --chat Hi 2>&1; echo \"exit=$?\""
                 $<TARGET_FILE:trit-cli> "${TRIT_SHARED_DIR}/golden/golden-c.gguf")
set_tests_properties(cli_generate_chat_on_base_model PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS "engine;cli"
  PASS_REGULAR_EXPRESSION "is a base model: it has no chat format.*--prompt TEXT or --stdin instead\n.*exit=[12]")
# A sampling setting out of range is named with its value: the message is formatted by a C++ stream
# (SamplingParams::validate), which failed at its first number while trit-cli carried a second, static
# copy of the C++ runtime beside cpp-httplib's ("top-p must be in (0, 1] (got ").
add_test(NAME cli_generate_rejects_bad_sampling_with_its_value
         COMMAND trit-cli generate ${_golden_a} --backend cpu --prompt x --top-p 2)
set_tests_properties(cli_generate_rejects_bad_sampling_with_its_value PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}"
  LABELS engine PASS_REGULAR_EXPRESSION "top-p must be in \\(0, 1\\] \\(got 2\\)")
