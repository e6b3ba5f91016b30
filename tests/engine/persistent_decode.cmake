# The persistent decode kernel's test reads shared/golden through golden_support.cpp (JSON).
if(TARGET persistent_decode_test)
  target_sources(persistent_decode_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/golden_support.cpp)
  target_link_libraries(persistent_decode_test PRIVATE nlohmann_json::nlohmann_json)
endif()
