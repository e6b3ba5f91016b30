# Data files compiled into trit_app_core (included from app/CMakeLists.txt after the target exists).
# catalog.json: the built-in model catalogue, read as :/trit/catalog.json (app/src/models/catalog.h).
qt_add_resources(trit_app_core trit_catalog
  PREFIX /trit
  BASE ${PROJECT_SOURCE_DIR}/resources
  FILES ${PROJECT_SOURCE_DIR}/resources/catalog.json)
