#!/usr/bin/env bash
# Renders the README's screenshots into docs/screenshots: the real window (tests/app/screenshots.cpp) in
# light and dark, at 1100x760 and 1600x1000, under Xvfb (the offscreen platform draws no dimming behind
# a dialog): first run, a chat with a long Markdown reply with code (a seeded conversation in a temporary
# data folder; a tiny synthetic model is loaded, nothing is generated), search results, the model
# manager while a throttled file downloads from a local HTTP server, and the settings. Vulkan runs on
# lavapipe so every machine draws the same GPU line. PNGs are made 8-bit with pngquant when installed.
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default build/debug, configured with the debug preset)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/debug}"
[ -f "$build/build.ninja" ] || cmake --preset debug
cmake --build "$build" --target trit_screenshots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json LP_NUM_THREADS=2
for theme in light dark; do
  for size in 1100x760 1600x1000; do
    xvfb-run -a -s "-screen 0 1920x1200x24" "$build/tests/app/trit_screenshots" "$tmp" "$theme" "${size%x*}" "${size#*x}"
  done
done
# 8-bit PNGs (pngquant) are a third of the size and look the same; else lossless optipng; else as written.
if command -v pngquant >/dev/null; then
  pngquant --force --ext .png --quality=70-95 --speed 1 "$tmp"/*.png
elif command -v optipng >/dev/null; then
  optipng -quiet -o2 "$tmp"/*.png
else
  echo "screenshots: neither pngquant nor optipng is installed; the PNGs stay as Qt wrote them"
fi
mkdir -p docs/screenshots
cp "$tmp"/*.png docs/screenshots/
ls -l docs/screenshots
