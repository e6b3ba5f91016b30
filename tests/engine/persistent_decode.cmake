# The persistent decode kernel's test reads shared/golden through golden_support.cpp (JSON).
if(TARGET persistent_decode_test)
  target_link_libraries(persistent_decode_test PRIVATE trit_golden_support)
endif()
