# Download, catalogue and models-folder tests (issue 9): each links the in-process loopback HTTP server
# and needs moc for its test class. The headless CLI test runs the real `trit` binary.
# The server is compiled once, for every test and benchmark that links it.
add_library(trit_http_test_server STATIC ${CMAKE_CURRENT_LIST_DIR}/http_test_server.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/http_test_server.h)
target_link_libraries(trit_http_test_server PUBLIC trit_app_core)
target_include_directories(trit_http_test_server PUBLIC ${CMAKE_CURRENT_LIST_DIR})
set_target_properties(trit_http_test_server PROPERTIES AUTOMOC ON)
trit_test_code_flags(trit_http_test_server)
foreach(t tst_download tst_download_cli tst_catalog tst_models_folder)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE trit_http_test_server)
    set_target_properties(${t} PROPERTIES AUTOMOC ON)
  endif()
endforeach()
if(TARGET tst_download_cli)
  target_compile_definitions(tst_download_cli PRIVATE TRIT_APP_BINARY="$<TARGET_FILE:trit>")
  add_dependencies(tst_download_cli trit)
endif()

# Loopback throughput benchmark: built, not run by CTest (it measures, it does not pass or fail).
# Run: build/<dir>/tests/app/bench_download [MiB]
add_executable(bench_download ${CMAKE_CURRENT_LIST_DIR}/bench_download.cpp)
target_link_libraries(bench_download PRIVATE trit_app_core trit_http_test_server)
set_target_properties(bench_download PROPERTIES AUTOMOC ON)
trit_set_warnings(bench_download)
