#!/usr/bin/env bash
# Sets up, builds (debug preset) and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
cmake --preset debug
cmake --build --preset debug
built=$(date +%s)
echo "test: build took $((built - start)) s"
ctest --preset debug
echo "test: whole run took $(($(date +%s) - start)) s"
