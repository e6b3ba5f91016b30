# trit-cli bench on lavapipe and the CPU backend: the JSON report names every figure (speed is never
# asserted in tests; see docs/benchmarks.md for figures on a real GPU).
set(_golden_a "${TRIT_SHARED_DIR}/golden/golden-a.gguf")
add_test(NAME cli_bench_vulkan_json
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 16 -n 4 --depths 0,8 --reps 1 --json)
set_tests_properties(cli_bench_vulkan_json PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "\"copy_bandwidth_gbs\": [1-9][0-9.e+]*,.*\"resident_mb_after_load\": [1-9][0-9.e+]*,.*\"test\": \"pp16\".*\"test\": \"tg4@d0\".*\"roofline\": 0\\.[0-9].*\"test\": \"tg4@d8\"")
add_test(NAME cli_bench_cpu_table
         COMMAND trit-cli bench ${_golden_a} --backend cpu -p 8 -n 2 --reps 1)
set_tests_properties(cli_bench_cpu_table PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "backend cpu.*\\| pp8 \\| [0-9.]+ .*\\| tg2@d0 \\| [0-9.]+")
add_test(NAME cli_bench_rejects_depth_past_context
         COMMAND trit-cli bench ${_golden_a} --backend cpu -p 8 -n 8 --depths 100000 --reps 1)
set_tests_properties(cli_bench_rejects_depth_past_context PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "needs a context of 100008 tokens but the model's is")
# The head's kind and the decode mode are reported, and --f16-head (the A/B switch) turns the int8 head
# off, for greedy and for sampled (--sample) decode. The reports below check no bandwidth or roofline:
# they skip the probes (--no-probes; ~5 s of lavapipe's time each), which cli_bench_vulkan_json runs.
add_test(NAME cli_bench_reports_the_head
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --no-probes)
set_tests_properties(cli_bench_reports_the_head PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "lm head: int8 table with bounds, F16 for the rows that may be chosen\ndecode: greedy\n")
# The prefill kernels are named: lavapipe has no accelerated dot product and no cooperative matrix, so
# blocks run the matvec kernel (on an NVIDIA GPU: the NV GEMM, or with --generic the KHR one). With
# --no-probes the copy bandwidth is not measured (0).
add_test(NAME cli_bench_reports_the_prefill_kernels
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --json --no-probes)
set_tests_properties(cli_bench_reports_the_prefill_kernels PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  TIMEOUT 120 PASS_REGULAR_EXPRESSION "\"copy_bandwidth_gbs\": 0\\.0,.*\"prefill_kernels\": \"block matvec kernel \\(bit extraction\\)\"")
add_test(NAME cli_bench_f16_head
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --f16-head --no-probes)
set_tests_properties(cli_bench_f16_head PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "lm head: F16, every row\ndecode: greedy\n")
add_test(NAME cli_bench_sampled
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 6 --depths 0,4 --reps 1 --sample --no-probes)
set_tests_properties(cli_bench_sampled PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "lm head: int8 table with bounds, F16 for the rows that may be chosen\ndecode: sampled \\(defaults\\)\n.*\\| tg6@d0 \\| [0-9.]+ .*\\| tg6@d4 \\| [0-9.]+ .*tg6@d0: [0-9]+ rows a step computed in F16 \\([0-9.]+% of the vocabulary\\)")
add_test(NAME cli_bench_sampled_f16_head
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --sample --f16-head --json --no-probes)
set_tests_properties(cli_bench_sampled_f16_head PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "\"decode\": \"sampled \\(defaults\\)\".*\"lm_head\": \"F16, every row\"")
add_test(NAME cli_bench_cpu_sampled
         COMMAND trit-cli bench ${_golden_a} --backend cpu -p 8 -n 2 --reps 1 --sample)
set_tests_properties(cli_bench_cpu_sampled PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "decode: sampled \\(defaults\\)\n.*\\| tg2@d0 \\| [0-9.]+")
# fp32 is the default and says so; --precision f64 runs the verification build, --generic the path
# without NVIDIA's extensions (on lavapipe the same kernels, but the report names it); a bad precision
# is refused with the choices.
add_test(NAME cli_bench_precision_fp32_by_default
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --no-probes)
set_tests_properties(cli_bench_precision_fp32_by_default PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  TIMEOUT 120 PASS_REGULAR_EXPRESSION "precision: fp32 activations\n")
add_test(NAME cli_bench_precision_f64_generic
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --precision=f64 --generic --json --no-probes)
set_tests_properties(cli_bench_precision_f64_generic PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  TIMEOUT 120 PASS_REGULAR_EXPRESSION "\"precision\": \"f64\",.*\"vendor_neutral\": true")
add_test(NAME cli_bench_rejects_unknown_precision
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --precision f16)
set_tests_properties(cli_bench_rejects_unknown_precision PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  PASS_REGULAR_EXPRESSION "unknown precision 'f16' \\(expected fp32, or f64")
# Batched decode (a server's streams): N sequences step together, greedy (each row's argmax on the device)
# or, with --sample, sampled as the server samples them (each row's best top_k from the device); each
# figure is named tgNxS@dP.
add_test(NAME cli_bench_batch
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 4 --depths 0 --reps 1 --batch 2,3 --no-probes)
set_tests_properties(cli_bench_batch PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "decode: greedy\n.*batched steps' lm head: (F16, every row|int8 table with bounds[^\n]*)\n.*\\| tg4x2@d8 \\| [0-9.]+ .*\\| tg4x3@d8 \\| [0-9.]+")
add_test(NAME cli_bench_batch_sampled
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 4 --depths 0 --reps 1 --batch 2,3 --sample --no-probes)
set_tests_properties(cli_bench_batch_sampled PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 120
  PASS_REGULAR_EXPRESSION "decode: sampled \\(defaults\\)\n.*batched steps' lm head: F16, every row\n.*\\| tg4x2@d8 \\| [0-9.]+ .*\\| tg4x3@d8 \\| [0-9.]+ .*tg4x2@d8: 100% of the steps sampled from each row's best top_k\ntg4x3@d8: 100%")
add_test(NAME cli_bench_batch_rejects_a_bad_count
         COMMAND trit-cli bench ${_golden_a} --backend vulkan -p 8 -n 2 --depths 0 --reps 1 --batch 0 --no-probes)
set_tests_properties(cli_bench_batch_rejects_a_bad_count PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine
  TIMEOUT 120 PASS_REGULAR_EXPRESSION "--batch: 0 is not between 1 and 64")
