# Model catalogue and downloads (app/src/models), included from app/CMakeLists.txt after trit_app_core.
# The built-in model catalogue, read as :/trit/catalog.json (app/src/models/catalog.h).
qt_add_resources(trit_app_core trit_catalog
  PREFIX /trit
  BASE ${PROJECT_SOURCE_DIR}/resources
  FILES ${PROJECT_SOURCE_DIR}/resources/catalog.json)
# SHA-256 while downloading goes through libcrypto (SHA extensions); see app/src/models/sha256.h.
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)
target_link_libraries(trit_app_core PUBLIC OpenSSL::Crypto)
