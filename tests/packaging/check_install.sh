#!/bin/bash
# `cmake --install` of a built tree into a scratch DESTDIR and prefix: the layout of a desktop
# installation is there and the installed `trit` starts offscreen from it.
# Usage: check_install.sh BUILD_DIR VERSION WORK_DIR
set -euo pipefail
build=$1 version=$2 work=$3
fail() { echo "check_install: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
prefix=/opt/trit-test
DESTDIR="$work/dest" cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install failed (log above)"; }
p="$work/dest$prefix"
for f in bin/trit bin/trit-cli share/applications/org.trit.Trit.desktop share/metainfo/org.trit.Trit.metainfo.xml \
         share/icons/hicolor/scalable/apps/org.trit.Trit.svg share/icons/hicolor/48x48/apps/org.trit.Trit.png \
         share/doc/trit/trit.txt share/doc/trit/bitnet-b1.58-2B-4T.txt share/doc/trit/third-party.txt share/doc/trit/adwaita-icons.txt; do
  [ -e "$p/$f" ] || fail "the installation lacks $prefix/$f"
done
[ -x "$p/bin/trit" ] || fail "$prefix/bin/trit is not executable"
source "$(dirname "$0")/scratch_env.sh" "$work"
"$p/bin/trit" --version | grep -qx "Trit $version" || fail "the installed trit --version does not say 'Trit $version'"
out=$("$p/bin/trit" --check-startup 2>&1) || { echo "$out"; fail "the installed trit did not start"; }
echo "$out"
grep -Eq 'main window: "Trit" [0-9]+x[0-9]+ visible=1' <<<"$out" || fail "the installed trit opened no window"
echo "check_install: OK"
