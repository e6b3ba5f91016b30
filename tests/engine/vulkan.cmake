# Vulkan engine tests: the whole-model test reads shared/golden through golden_support.cpp (JSON).
if(TARGET vulkan_forward_test)
  target_sources(vulkan_forward_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/golden_support.cpp)
  target_link_libraries(vulkan_forward_test PRIVATE nlohmann_json::nlohmann_json)
endif()
