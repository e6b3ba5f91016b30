# Conversation storage (issue 5): extra wiring for the tst_storage_* tests and the headless commands.
# The tst_storage_*.cpp and tst_conversation_*.cpp executables themselves come from the glob in
# CMakeLists.txt; this adds the kill-test helper, the paths the tests need, and CLI tests of the real
# `trit` binary against a scratch data folder.

# Qt Test classes live in the .cpp files (`#include "tst_x.moc"`): moc must run on them.
set_target_properties(tst_storage_sqlite tst_storage_migrations tst_storage_store tst_storage_exchange
                      tst_storage_durability tst_conversation_models tst_app_folders PROPERTIES AUTOMOC ON)

# Streams a reply until SIGKILLed (tst_storage_durability's kill test).
add_executable(trit_storage_reply_helper ${CMAKE_CURRENT_LIST_DIR}/storage_reply_helper.cpp)
target_link_libraries(trit_storage_reply_helper PRIVATE trit_app_core)
trit_set_warnings(trit_storage_reply_helper)

target_compile_definitions(tst_storage_durability PRIVATE
  TRIT_REPLY_HELPER="$<TARGET_FILE:trit_storage_reply_helper>"
  TRIT_APP_BINARY="$<TARGET_FILE:trit>"
  TRIT_STORAGE_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/storage_data")
add_dependencies(tst_storage_durability trit_storage_reply_helper trit)

# The scale benchmark (not a test): tests/bench/storage_bench.cpp, figures in docs/storage.md.
add_executable(trit_storage_bench ${PROJECT_SOURCE_DIR}/tests/bench/storage_bench.cpp)
target_link_libraries(trit_storage_bench PRIVATE trit_app_core)
trit_set_warnings(trit_storage_bench)

# The headless commands, run as a user would: a fresh data folder, import a sample, list, export.
set(_cli_dir ${CMAKE_BINARY_DIR}/test-tmp/conversations-cli)
set(_cli_env ${TRIT_TEST_ENV} "TRIT_DATA_DIR=${_cli_dir}")
set(_sample ${CMAKE_CURRENT_LIST_DIR}/storage_data/sample_conversation.json)
add_test(NAME conversations_cli_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_cli_dir})
add_test(NAME conversations_cli_import COMMAND trit --import-conversation ${_sample})
add_test(NAME conversations_cli_list COMMAND trit --list-conversations)
add_test(NAME conversations_cli_export_markdown COMMAND trit --export-conversation 1 --format markdown)
add_test(NAME conversations_cli_export_json COMMAND trit --export-conversation 1 --format json)
add_test(NAME conversations_cli_import_malformed
         COMMAND trit --import-conversation ${CMAKE_CURRENT_LIST_DIR}/storage_data/malformed_role.json)
add_test(NAME conversations_cli_export_missing COMMAND trit --export-conversation 999)
set_tests_properties(conversations_cli_clean PROPERTIES FIXTURES_SETUP conversations_cli_fresh)
set_tests_properties(conversations_cli_import PROPERTIES FIXTURES_REQUIRED conversations_cli_fresh
                     FIXTURES_SETUP conversations_cli_data PASS_REGULAR_EXPRESSION "^imported conversation 1\n$")
set_tests_properties(conversations_cli_list PROPERTIES PASS_REGULAR_EXPRESSION
                     "^1\t2026-11-20T09:15:[0-9]+Z\tpinned\tSample: ternary weights\n$")
set_tests_properties(conversations_cli_export_markdown PROPERTIES PASS_REGULAR_EXPRESSION
                     "# Sample: ternary weights.*## User.*## Assistant.*finished: stop")
set_tests_properties(conversations_cli_export_json PROPERTIES PASS_REGULAR_EXPRESSION
                     "\"format\": \"trit-conversation\".*\"finishReason\": \"length\"")
set_tests_properties(conversations_cli_import_malformed PROPERTIES WILL_FAIL FALSE PASS_REGULAR_EXPRESSION
                     "messages\\[1\\]\\.role: must be system, user or assistant, not \"robot\"")
set_tests_properties(conversations_cli_export_missing PROPERTIES PASS_REGULAR_EXPRESSION
                     "conversation 999 does not exist")
set_tests_properties(conversations_cli_list conversations_cli_export_markdown conversations_cli_export_json
                     conversations_cli_import_malformed conversations_cli_export_missing
                     PROPERTIES FIXTURES_REQUIRED conversations_cli_data)
set_tests_properties(conversations_cli_clean conversations_cli_import conversations_cli_list
                     conversations_cli_export_markdown conversations_cli_export_json
                     conversations_cli_import_malformed conversations_cli_export_missing
                     PROPERTIES ENVIRONMENT "${_cli_env}" LABELS app TIMEOUT 60 RESOURCE_LOCK conversations_cli)
