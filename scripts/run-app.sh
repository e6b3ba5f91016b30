#!/usr/bin/env bash
# Sets up, builds (release preset) and starts the Trit desktop app. Extra arguments go to `trit`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release --target trit
exec build/release/app/trit "$@"
