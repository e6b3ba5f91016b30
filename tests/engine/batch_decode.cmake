# Batched decode reads shared/golden through golden_support.cpp (JSON).
if(TARGET batch_decode_test)
  target_sources(batch_decode_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/golden_support.cpp)
  target_link_libraries(batch_decode_test PRIVATE nlohmann_json::nlohmann_json)
endif()
