#!/usr/bin/env python3
"""Checks packaging/flatpak/org.trit.Trit.json without flatpak-builder: valid JSON, the KDE 6 runtime,
the app id used by the desktop file, icons and metainfo, exactly the permissions Trit needs (GPU for
Vulkan, network for model downloads, a display) and a build of the checkout with the tests off.
Usage: check_flatpak_manifest.py MANIFEST"""
import json
import sys

ALLOWED = {"--device=dri", "--share=network", "--share=ipc", "--socket=wayland", "--socket=fallback-x11"}


def fail(msg):
    sys.exit(f"check_flatpak_manifest: {sys.argv[1]}: {msg}")


def main():
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"cannot read it as JSON: {e}")
    if m.get("app-id") != "org.trit.Trit":
        fail(f"app-id is {m.get('app-id')!r}, expected 'org.trit.Trit' (the desktop file's and icons' name)")
    if m.get("runtime") != "org.kde.Platform" or m.get("sdk") != "org.kde.Sdk":
        fail(f"runtime/sdk are {m.get('runtime')!r}/{m.get('sdk')!r}, expected org.kde.Platform/org.kde.Sdk")
    if not str(m.get("runtime-version", "")).startswith("6."):
        fail(f"runtime-version {m.get('runtime-version')!r} is not a Qt 6 KDE runtime (6.x)")
    if m.get("command") != "trit":
        fail(f"command is {m.get('command')!r}, expected 'trit'")
    args = set(m.get("finish-args", []))
    if args != ALLOWED:
        fail(f"finish-args differ from what Trit needs: extra {sorted(args - ALLOWED)}, missing {sorted(ALLOWED - args)}")
    modules = m.get("modules", [])
    if not modules or not isinstance(modules[-1], dict) or modules[-1].get("name") != "trit":
        fail("the last module must be 'trit' (the checkout)")
    trit = modules[-1]
    if trit.get("buildsystem") not in ("cmake", "cmake-ninja"):
        fail(f"module trit builds with {trit.get('buildsystem')!r}, expected cmake-ninja")
    if "-DTRIT_BUILD_TESTS=OFF" not in trit.get("config-opts", []):
        fail("module trit must configure with -DTRIT_BUILD_TESTS=OFF (GoogleTest is not in the SDK)")
    for mod in modules:
        for src in mod.get("sources", []):
            if src.get("type") == "git" and not (src.get("tag") or src.get("commit")):
                fail(f"module {mod.get('name')}: a git source without tag or commit is not reproducible")
            if src.get("type") == "archive" and not src.get("sha256"):
                fail(f"module {mod.get('name')}: an archive source needs its sha256")
    print("check_flatpak_manifest: OK")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main()
