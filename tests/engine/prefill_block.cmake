# The large-block prefill test reads shared/golden through golden_support.cpp (JSON).
if(TARGET prefill_block_test)
  target_link_libraries(prefill_block_test PRIVATE trit_golden_support)
endif()
