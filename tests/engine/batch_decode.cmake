# Batched decode reads shared/golden through the golden files' reader.
if(TARGET batch_decode_test)
  target_link_libraries(batch_decode_test PRIVATE trit_golden_support)
endif()
