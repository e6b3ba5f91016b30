# Vulkan engine tests that read shared/golden through golden_support.cpp (JSON), or size their caches
# by it (context_for).
foreach(t vulkan_forward_test vulkan_sampled_test)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE trit_golden_support)
  endif()
endforeach()
