# Download, catalogue and models-folder tests (issue 9): each links the in-process loopback HTTP server
# and needs moc for its test class. The headless CLI test runs the real `trit` binary.
foreach(t tst_download tst_download_cli tst_catalog tst_models_folder)
  if(TARGET ${t})
    target_sources(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/http_test_server.cpp ${CMAKE_CURRENT_LIST_DIR}/http_test_server.h)
    set_target_properties(${t} PROPERTIES AUTOMOC ON)
  endif()
endforeach()
if(TARGET tst_download_cli)
  target_compile_definitions(tst_download_cli PRIVATE TRIT_APP_BINARY="$<TARGET_FILE:trit>")
  add_dependencies(tst_download_cli trit)
endif()

# Loopback throughput benchmark: built, not run by CTest (it measures, it does not pass or fail).
# Run: build/<dir>/tests/app/bench_download [MiB]
add_executable(bench_download ${CMAKE_CURRENT_LIST_DIR}/bench_download.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/http_test_server.cpp ${CMAKE_CURRENT_LIST_DIR}/http_test_server.h)
target_link_libraries(bench_download PRIVATE trit_app_core)
target_include_directories(bench_download PRIVATE ${CMAKE_CURRENT_LIST_DIR})
set_target_properties(bench_download PROPERTIES AUTOMOC ON)
trit_set_warnings(bench_download)
