# `trit-cli serve` (engine/server): the API layer's GoogleTest cases link the server library.
if(TARGET server_api_test)
  target_link_libraries(server_api_test PRIVATE trit_server nlohmann_json::nlohmann_json)
endif()
