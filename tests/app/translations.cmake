# Issue #8: the shipped translations (translations/*.ts) cover every qsTr()/tr() string of the current
# sources. translations_complete runs a fresh lupdate (on a copy) and fails on any string that is
# missing, unfinished or empty, or whose translation loses a placeholder, tag or '&' accelerator.
# translations_check_finds_gaps runs the same checker on a small doctored tree and must see its six
# planted problems, so the check itself cannot silently pass everything. Both take about a second.
find_package(Qt6 QUIET COMPONENTS LinguistTools)
find_package(Python3 COMPONENTS Interpreter)
if(TARGET Qt6::lupdate AND Python3_Interpreter_FOUND)
  set(TRIT_TR_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/translations/check_translations.py)
  add_test(NAME translations_complete
           COMMAND Python3::Interpreter ${TRIT_TR_CHECK} --lupdate $<TARGET_FILE:Qt6::lupdate>
                   --source-dir ${PROJECT_SOURCE_DIR} --work-dir ${CMAKE_CURRENT_BINARY_DIR}/translations_complete)
  set_tests_properties(translations_complete PROPERTIES LABELS app TIMEOUT 60)

  add_test(NAME translations_check_finds_gaps
           COMMAND Python3::Interpreter ${TRIT_TR_CHECK} --lupdate $<TARGET_FILE:Qt6::lupdate>
                   --source-dir ${CMAKE_CURRENT_SOURCE_DIR}/translations/fixture
                   --work-dir ${CMAKE_CURRENT_BINARY_DIR}/translations_fixture)
  # Passing means: exactly the planted problems were reported (the checker exits 1 on them).
  set_tests_properties(translations_check_finds_gaps PROPERTIES LABELS app TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "fixture_de\\.ts: 6 problem\\(s\\):")
else()
  message(STATUS "lupdate or Python 3 not found: translation completeness is not tested")
endif()
