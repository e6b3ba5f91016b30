# The SPIR-V tools' library (shaders/tools/: the NV -> KHR cooperative-matrix rewrite) beside the engine.
if(TARGET spirv_coop_khr_test)
  target_link_libraries(spirv_coop_khr_test PRIVATE trit_spirv_tools)
endif()
