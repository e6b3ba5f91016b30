# Packaging checks (packaging/, tests/packaging/), label "packaging": the desktop entry and AppStream
# metainfo validate; `cmake --install` gives a layout whose trit starts; the .deb that CPack builds from
# this tree has the right metadata and files, and its extracted trit starts offscreen. They build
# nothing: they need trit and trit-cli built (the default target) and dpkg-deb, desktop-file-validate,
# appstreamcli (scripts/setup.sh).
set(TRIT_PKG_TESTS ${PROJECT_SOURCE_DIR}/tests/packaging)
set(TRIT_PKG_WORK ${CMAKE_BINARY_DIR}/test-tmp/packaging)

add_test(NAME packaging_desktop_file
         COMMAND desktop-file-validate ${PROJECT_SOURCE_DIR}/packaging/org.trit.Trit.desktop)
add_test(NAME packaging_metainfo
         COMMAND appstreamcli validate --no-net ${CMAKE_BINARY_DIR}/packaging/org.trit.Trit.metainfo.xml)
add_test(NAME packaging_install_tree
         COMMAND ${TRIT_PKG_TESTS}/check_install.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION} ${TRIT_PKG_WORK}/install)
add_test(NAME packaging_deb
         COMMAND ${TRIT_PKG_TESTS}/check_deb.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION} ${TRIT_PKG_WORK}/deb)
set_tests_properties(packaging_desktop_file packaging_metainfo PROPERTIES LABELS packaging TIMEOUT 30)
# The app runs with the suite's environment (lavapipe); the scripts give it a scratch home.
set_tests_properties(packaging_install_tree packaging_deb PROPERTIES LABELS packaging TIMEOUT 180
                     ENVIRONMENT "${TRIT_TEST_ENV}")

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME packaging_flatpak_manifest
           COMMAND Python3::Interpreter ${TRIT_PKG_TESTS}/check_flatpak_manifest.py
                   ${PROJECT_SOURCE_DIR}/packaging/flatpak/org.trit.Trit.json)
  set_tests_properties(packaging_flatpak_manifest PROPERTIES LABELS packaging TIMEOUT 30)
endif()

# tst_about (the About dialog's data) is a Q_OBJECT test: it needs moc.
set_target_properties(tst_about PROPERTIES AUTOMOC ON)
