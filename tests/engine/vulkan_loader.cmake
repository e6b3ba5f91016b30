# The run-time Vulkan loader: the test runs the trit-cli built beside it (with TRIT_VULKAN_LOADER
# pointing at a missing library) and reads its ELF header.
if(TARGET vulkan_loader_test)
  target_compile_definitions(vulkan_loader_test PRIVATE TRIT_CLI_EXE="$<TARGET_FILE:trit-cli>")
  add_dependencies(vulkan_loader_test trit-cli)
endif()
