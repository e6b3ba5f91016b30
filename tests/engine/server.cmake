# `trit-cli serve` (engine/server): the API layer's GoogleTest cases link the server library.
if(TARGET server_api_test)
  target_link_libraries(server_api_test PRIVATE trit_server nlohmann_json::nlohmann_json)
endif()
if(TARGET batch_scheduler_test)
  target_link_libraries(batch_scheduler_test PRIVATE trit_server)
endif()

# The server end to end with the official `openai` npm client (tests/js/serve.test.mjs, node:test): it
# starts `trit-cli serve` on tiny models on the CPU backend and talks to it over loopback. A missing node
# or node_modules fails the test (scripts/setup.sh installs both), never a silent skip.
find_program(TRIT_NODE node)
set(_serve_js ${PROJECT_SOURCE_DIR}/tests/js/serve.test.mjs)
set(_serve_modules ${PROJECT_SOURCE_DIR}/tests/js/node_modules/openai)
add_test(NAME server_openai_client
         COMMAND sh -c "command -v \"$0\" >/dev/null || { echo 'node (Node.js) is not installed: run scripts/setup.sh' >&2; exit 1; }; \
[ -d \"$2\" ] || { echo 'tests/js/node_modules lacks the openai client: run scripts/setup.sh' >&2; exit 1; }; \
exec \"$0\" --test \"$1\""
                 ${TRIT_NODE} ${_serve_js} ${_serve_modules})
set_tests_properties(server_openai_client PROPERTIES
  ENVIRONMENT "${TRIT_TEST_ENV};TRIT_CLI=$<TARGET_FILE:trit-cli>" LABELS "engine;server" TIMEOUT 120)
