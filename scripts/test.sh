#!/usr/bin/env bash
# Sets up, builds (debug preset), lints (scripts/lint.sh) and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
cmake --preset debug
cmake --build --preset debug
built=$(date +%s)
echo "test: build took $((built - start)) s"
# clang-format, clang-tidy and qmllint with the checked-in configurations: a finding fails the run
# before any test does (it needs the build's compile database and QML type descriptions).
scripts/lint.sh build/debug
echo "test: lint took $(($(date +%s) - built)) s"
ctest --preset debug
echo "test: whole run took $(($(date +%s) - start)) s"
