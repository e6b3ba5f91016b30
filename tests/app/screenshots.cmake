# The README's screenshots (scripts/screenshots.sh): the real window on the real bridges with a seeded
# conversation, a tiny synthetic model and a download from the loopback HTTP server. Built only when
# asked for, so the test build does not pay for it.
add_executable(trit_screenshots EXCLUDE_FROM_ALL ${CMAKE_CURRENT_LIST_DIR}/screenshots.cpp)
target_link_libraries(trit_screenshots PRIVATE trit_app_core trit_http_test_server)
target_include_directories(trit_screenshots PRIVATE ${CMAKE_CURRENT_LIST_DIR})
trit_test_code_flags(trit_screenshots)
