# The chat test classes are QObjects declared in their .cpp files: they need moc.
foreach(t tst_chat_markdown tst_chat_prompt tst_chat_bridge tst_chat_guards tst_chat_conversations tst_chat_window
          tst_api_server tst_code_highlighter tst_first_run)
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES AUTOMOC ON)
  endif()
endforeach()
# The two longest Qt suites (~16 s each in CI): a cost hint starts them early (tests/CMakeLists.txt,
# trit_gtest, says why).
set_tests_properties(tst_chat_bridge tst_chat_conversations PROPERTIES COST 15)

# The chat window's end-to-end test and frame-time benchmark (the Qt Test suites tst_chat_*.cpp are
# picked up by tests/app/CMakeLists.txt).

# End to end: the real binary starts offscreen, loads a small synthetic model (trit-cli make-model,
# random weights, so the reply is random text made of real tokens) on the CPU engine, sends a message
# and checks that the reply streamed, has statistics and is shown by the view. Exit status decides.
set(TRIT_CHAT_E2E_DIR ${CMAKE_BINARY_DIR}/test-tmp/chat-e2e)
file(MAKE_DIRECTORY ${TRIT_CHAT_E2E_DIR})  # make-model writes into it; a fresh build tree has none
add_test(NAME app_chat_make_model
         COMMAND trit-cli make-model ${TRIT_CHAT_E2E_DIR}/tiny.gguf --shape tiny --seed 7)
set_tests_properties(app_chat_make_model PROPERTIES FIXTURES_SETUP chat_model LABELS app TIMEOUT 60)
# The local API server's test (tst_api_server.cpp) chats with the same model: its greedy replies are text.
if(TARGET tst_api_server)
  set_tests_properties(tst_api_server PROPERTIES FIXTURES_REQUIRED chat_model TIMEOUT 120
                       ENVIRONMENT "${TRIT_TEST_ENV};TRIT_API_TEST_MODEL=${TRIT_CHAT_E2E_DIR}/tiny.gguf")
endif()
# The conversation is saved in a fresh data folder of its own; afterwards the headless commands read it
# back from the same folder, as a second process would: the reply landed in the database, finished, with
# its statistics.
set(TRIT_CHAT_E2E_DATA ${TRIT_CHAT_E2E_DIR}/data)
set(_e2e_env ${TRIT_TEST_ENV} "TRIT_DATA_DIR=${TRIT_CHAT_E2E_DATA}")
add_test(NAME app_chat_e2e_clean_data COMMAND ${CMAKE_COMMAND} -E rm -rf ${TRIT_CHAT_E2E_DATA})
set_tests_properties(app_chat_e2e_clean_data PROPERTIES FIXTURES_SETUP chat_e2e_fresh LABELS app TIMEOUT 30
                     RESOURCE_LOCK chat_e2e_data)
add_test(NAME app_chat_end_to_end
         COMMAND trit --model ${TRIT_CHAT_E2E_DIR}/tiny.gguf --backend cpu --send "hello"
                 --max-tokens 64 --check-reply --settings ${TRIT_CHAT_E2E_DIR}/settings.ini)
set_tests_properties(app_chat_end_to_end PROPERTIES ENVIRONMENT "${_e2e_env}" LABELS app TIMEOUT 200
                     FIXTURES_REQUIRED "chat_model;chat_e2e_fresh" FIXTURES_SETUP chat_e2e_saved
                     RESOURCE_LOCK chat_e2e_data)  # exit status decides (ChatApp::checkSavedReply included)
add_test(NAME app_chat_e2e_listed COMMAND trit --list-conversations)
set_tests_properties(app_chat_e2e_listed PROPERTIES PASS_REGULAR_EXPRESSION "^1\t[0-9T:.Z-]+\t-\thello\n$")
add_test(NAME app_chat_e2e_exported COMMAND trit --export-conversation 1 --format json)
set_tests_properties(app_chat_e2e_exported PROPERTIES PASS_REGULAR_EXPRESSION
  "\"role\": \"user\",[^}]*\"text\": \"hello\".*\"finishReason\": \"(stop|length)\".*\"generatedTokens\": [1-9]")
set_tests_properties(app_chat_e2e_listed app_chat_e2e_exported PROPERTIES ENVIRONMENT "${_e2e_env}" LABELS app
                     TIMEOUT 30 FIXTURES_REQUIRED chat_e2e_saved RESOURCE_LOCK chat_e2e_data)

# Frame-time benchmark (reports, does not judge): streams a 4,000-token reply into the chat view.
# Run it by hand: build/<dir>/tests/app/chat_frame_benchmark (see docs/chat-window.md).
add_executable(chat_frame_benchmark ${CMAKE_CURRENT_LIST_DIR}/bench_chat_frames.cpp)
target_link_libraries(chat_frame_benchmark PRIVATE trit_app_core)
trit_set_warnings(chat_frame_benchmark)
