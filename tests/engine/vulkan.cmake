# Vulkan engine tests: the whole-model test reads shared/golden through golden_support.cpp (JSON).
if(TARGET vulkan_forward_test)
  target_link_libraries(vulkan_forward_test PRIVATE trit_golden_support)
endif()
