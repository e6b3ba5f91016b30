# The large-block prefill test reads shared/golden through golden_support.cpp (JSON).
if(TARGET prefill_block_test)
  target_sources(prefill_block_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/golden_support.cpp)
  target_link_libraries(prefill_block_test PRIVATE nlohmann_json::nlohmann_json)
endif()
