# Every user-visible string is translatable (qsTr/tr). `cmake --build <dir> --target trit_app_core_lupdate`
# refreshes the .ts files from the C++ and QML sources; the compiled .qm files are embedded under
# :/i18n and loaded for the user's locale at startup (ChatApp::installTranslator).
find_package(Qt6 6.4 COMPONENTS LinguistTools)
if(Qt6LinguistTools_FOUND)
  file(GLOB TRIT_TS_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/translations/*.ts)
  file(GLOB_RECURSE TRIT_I18N_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/app/src/*.cpp
       ${PROJECT_SOURCE_DIR}/app/src/*.h ${PROJECT_SOURCE_DIR}/qml/*.qml)
  qt_add_lupdate(trit_app_core TS_FILES ${TRIT_TS_FILES} SOURCES ${TRIT_I18N_SOURCES})
  qt_add_lrelease(trit_app_core TS_FILES ${TRIT_TS_FILES} QM_FILES_OUTPUT_VARIABLE TRIT_QM_FILES)
  qt_add_resources(trit_app_core "trit_translations" PREFIX "/i18n" BASE ${CMAKE_CURRENT_BINARY_DIR} FILES ${TRIT_QM_FILES})
else()
  message(STATUS "Qt LinguistTools not found: translations are not built")
endif()
