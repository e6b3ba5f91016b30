# CPU reference forward pass: the golden tests read shared/golden through golden_support.cpp (JSON via
# nlohmann_json); golden_cli_test also runs the trit-cli binary it is given at build time.
foreach(t golden_forward_test golden_cli_test cpu_forward_test)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE trit_golden_support)
  endif()
endforeach()
if(TARGET golden_cli_test)
  target_compile_definitions(golden_cli_test PRIVATE TRIT_CLI_EXE="$<TARGET_FILE:trit-cli>")
  add_dependencies(golden_cli_test trit-cli)
endif()
