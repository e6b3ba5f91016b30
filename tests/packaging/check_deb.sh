#!/bin/bash
# Builds the Debian package from a configured and built tree with CPack, checks its metadata and
# contents with dpkg-deb, extracts it into a scratch root and starts the extracted `trit` offscreen.
# Nothing is installed on the system. Usage: check_deb.sh BUILD_DIR VERSION WORK_DIR
set -euo pipefail
build=$1 version=$2 work=$3
fail() { echo "check_deb: $*" >&2; exit 1; }
for tool in cpack dpkg-deb desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/setup.sh installs it)"
done
[ -f "$build/CPackConfig.cmake" ] || fail "$build/CPackConfig.cmake is missing: configure the build first"

rm -rf "$work" && mkdir -p "$work"
# cpack re-runs the install step of the existing build (stripping the binaries); it builds nothing.
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed (log above)"; }
arch=$(dpkg --print-architecture)
deb="$work/out/trit_${version}_${arch}.deb"
[ -f "$deb" ] || { ls -l "$work/out"; fail "cpack did not produce $deb"; }
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# Metadata: name, version from project(VERSION), architecture, dependencies.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = trit ] || fail "Package is '$(field Package)', expected trit"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', expected $version (project(VERSION))"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture is '$(field Architecture)', expected $arch"
depends=$(field Depends)
echo "Depends: $depends"
for dep in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6qml6 libqt6quick6 libqt6network6 libvulkan1 \
           libsqlite3-0 qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts \
           qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtquick-dialogs; do
  grep -Eq "(^|, )${dep//+/\\+}( \(|,|$)" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
grep -q "mesa-vulkan-drivers | vulkan-icd" <<<"$(field Recommends)" ||
  fail "Recommends lacks 'mesa-vulkan-drivers | vulkan-icd': $(field Recommends)"

# Contents: every file a desktop installation needs, under /usr.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/contents.txt"
for f in /usr/bin/trit /usr/bin/trit-cli /usr/share/applications/org.trit.Trit.desktop \
         /usr/share/metainfo/org.trit.Trit.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/org.trit.Trit.svg \
         /usr/share/doc/trit/trit.txt /usr/share/doc/trit/bitnet-b1.58-2B-4T.txt /usr/share/doc/trit/third-party.txt /usr/share/doc/trit/adwaita-icons.txt; do
  grep -qxF "$f" "$work/contents.txt" || fail "the package lacks $f"
done
for size in 16 32 48 64 128 256; do
  grep -qxF "/usr/share/icons/hicolor/${size}x${size}/apps/org.trit.Trit.png" "$work/contents.txt" ||
    fail "the package lacks the ${size}x${size} icon"
done
outside=$(grep -v -e '^/$' -e '^/usr/' "$work/contents.txt" || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"

# Extract into a scratch root and run what is there.
root="$work/root"
dpkg-deb -x "$deb" "$root"
desktop-file-validate "$root/usr/share/applications/org.trit.Trit.desktop" || fail "the packaged desktop file is invalid"
appstreamcli validate --no-net "$root/usr/share/metainfo/org.trit.Trit.metainfo.xml" >"$work/appstream.log" 2>&1 ||
  { cat "$work/appstream.log"; fail "the packaged metainfo does not validate"; }
grep -q "release version=\"$version\"" "$root/usr/share/metainfo/org.trit.Trit.metainfo.xml" ||
  fail "the metainfo's release is not $version"
source "$(dirname "$0")/scratch_env.sh" "$work"
"$root/usr/bin/trit" --version | grep -qx "Trit $version" || fail "trit --version does not say 'Trit $version'"
out=$("$root/usr/bin/trit" --check-startup 2>&1) || { echo "$out"; fail "the packaged trit did not start"; }
echo "$out"
grep -Eq 'main window: "Trit" [0-9]+x[0-9]+ visible=1' <<<"$out" || fail "the packaged trit opened no window"
"$root/usr/bin/trit-cli" --help >/dev/null 2>&1 || fail "the packaged trit-cli --help failed"
echo "check_deb: OK"
