# The chat test classes are QObjects declared in their .cpp files: they need moc.
foreach(t tst_chat_markdown tst_chat_prompt tst_chat_bridge tst_chat_guards tst_chat_conversations)
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES AUTOMOC ON)
  endif()
endforeach()

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
add_test(NAME app_chat_end_to_end
         COMMAND trit --model ${TRIT_CHAT_E2E_DIR}/tiny.gguf --backend cpu --send "hello"
                 --max-tokens 64 --check-reply --settings ${TRIT_CHAT_E2E_DIR}/settings.ini)
set_tests_properties(app_chat_end_to_end PROPERTIES ENVIRONMENT "${TRIT_TEST_ENV}" LABELS app TIMEOUT 200
                     FIXTURES_REQUIRED chat_model)

# Frame-time benchmark (reports, does not judge): streams a 4,000-token reply into the chat view.
# Run it by hand: build/<dir>/tests/app/chat_frame_benchmark (see docs/chat-window.md).
add_executable(chat_frame_benchmark ${CMAKE_CURRENT_LIST_DIR}/bench_chat_frames.cpp)
target_link_libraries(chat_frame_benchmark PRIVATE trit_app_core)
trit_set_warnings(chat_frame_benchmark)
