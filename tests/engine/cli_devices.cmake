# trit-cli devices on lavapipe: every line of the description (issue 26: the precision in use among
# them), then the default device. The description is formatted by a C++ stream, which came out empty
# while trit-cli carried a second, static copy of the C++ runtime beside cpp-httplib's.
add_test(NAME cli_devices_describes_lavapipe COMMAND trit-cli devices)
set_tests_properties(cli_devices_describes_lavapipe PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS engine TIMEOUT 60
  PASS_REGULAR_EXPRESSION "0: llvmpipe[^\n]*\\(cpu\\)\n +Vulkan 1\\.[0-9.]+, driver [^\n]+\n +heap 0: [^\n]+\n +subgroup size [0-9]+, arithmetic yes[^\n]*\n.*\n +precision fp32 activations \\(the default on every device\\)[^\n]*\n +timestamps [^\n]*\n +\\(default device\\)")
