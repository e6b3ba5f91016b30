# CPack: a Debian package of the installed layout (`cpack -G DEB` in the build tree gives
# trit_<version>_<arch>.deb). Library dependencies come from dpkg-shlibdeps, which reads the binaries'
# NEEDED entries (libqt6*, libsqlite3-0, libssl3, libc6, libstdc++6...); what no ELF header can tell is
# declared by name (Debian 12 package names): the Vulkan loader, which the engine opens at run time, and
# the QML modules Trit imports at run time (qml/*.qml: QtQuick, QtQuick.Controls, .Layouts, .Dialogs,
# .Window, .Templates, and the Qt.labs.folderlistmodel that the non-native FileDialog uses).
set(CPACK_PACKAGE_NAME "trit")
set(CPACK_PACKAGE_VENDOR "The Trit contributors")
set(CPACK_PACKAGE_CONTACT "The Trit contributors <trit@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION "Trit runs BitNet b1.58 ternary language models on your own computer with its own
Vulkan engine: no account, no cloud, conversations stay on this machine. It downloads
the models it offers, keeps conversations in a local database and shows the engine's
speed as it writes.")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "trit")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# A Debug build tree packs in seconds too: stripped binaries are a tenth of the size.
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # trit_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_COMPRESSION_TYPE "gzip")  # fast on two cores; dpkg everywhere reads it

set(TRIT_DEB_QML_DEPENDS
    "qml6-module-qtquick"
    "qml6-module-qtquick-controls"
    "qml6-module-qtquick-layouts"
    "qml6-module-qtquick-templates"
    "qml6-module-qtquick-window"
    "qml6-module-qtquick-dialogs"
    "qml6-module-qtqml-workerscript"
    "qml6-module-qt-labs-folderlistmodel"
    "libqt6svg6")  # a plugin (the window's SVG icons): no binary links it, so shlibdeps cannot see it
find_program(TRIT_DPKG_SHLIBDEPS dpkg-shlibdeps)
# The Vulkan loader is opened at run time (engine/src/vulkan/loader.h), so no binary names it in NEEDED
# and dpkg-shlibdeps cannot see it: it is declared by name, at the version whose symbols the engine calls
# (the loader's own shlibs give 1.2.131.2 for them; Trit needs a Vulkan 1.2 loader).
set(TRIT_DEB_VULKAN_LOADER "libvulkan1 (>= 1.2.131.2)")
if(TRIT_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(TRIT_DEB_LIB_DEPENDS "${TRIT_DEB_VULKAN_LOADER}")
else()
  # Without dpkg-dev, the libraries the binaries link (objdump -p build/.../trit | grep NEEDED), unversioned.
  message(STATUS "dpkg-shlibdeps not found: the .deb declares its library dependencies unversioned")
  set(TRIT_DEB_LIB_DEPENDS
      "libc6" "libstdc++6" "libgcc-s1" "${TRIT_DEB_VULKAN_LOADER}" "libqt6core6" "libqt6gui6" "libqt6network6"
      "libqt6qml6" "libqt6quick6" "libqt6quickcontrols2-6" "libsqlite3-0" "libssl3" "libcpp-httplib0.11")
endif()
list(APPEND TRIT_DEB_LIB_DEPENDS ${TRIT_DEB_QML_DEPENDS})
list(JOIN TRIT_DEB_LIB_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# A Vulkan driver: Mesa's (lavapipe on any CPU, radv, anv...) or a vendor's; Wayland sessions want
# the Qt Wayland plugin (X11 works through libqt6gui6's xcb plugin).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers | vulkan-icd, qt6-wayland")

include(CPack)
