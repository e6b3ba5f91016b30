# model_load_test also runs the trit-cli binary it is given at build time: `inspect` must call loadable
# exactly what Model::open loads (issue 30 #4, #6).
if(TARGET model_load_test)
  target_compile_definitions(model_load_test PRIVATE TRIT_CLI_EXE="$<TARGET_FILE:trit-cli>")
  add_dependencies(model_load_test trit-cli)
endif()
