#!/usr/bin/env python3
"""Fails when a shipped translation (translations/*.ts) is incomplete.

Issue #8: every user-visible string is translatable and German ships complete. A translation is
complete when
  1. no entry of the checked-in .ts is unfinished or empty, and every translation keeps the
     source's placeholders (%1..%99), HTML/Markdown tags and keyboard accelerator (&X);
  2. a fresh lupdate over the current sources (the same files translations/translations.cmake
     hands to qt_add_lupdate) finds no string the .ts lacks: a new or reworded qsTr()/tr() makes
     this test fail until the string is translated.
lupdate runs on a copy in --work-dir, so the source tree is never touched. Entries whose string
left the sources are reported but do not fail: lrelease drops them, and the fix is to refresh the
.ts (cmake --build <dir> --target trit_app_core_lupdate, then lupdate -no-obsolete).
"""
import argparse
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

PLACEHOLDER = re.compile(r"%(?:[1-9][0-9]?|n)")
TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*\b[^>]*>")
ACCELERATOR = re.compile(r"&(?=[^&\s])")


def i18n_sources(root: Path) -> list[Path]:
    """The files translations/translations.cmake globs for qt_add_lupdate."""
    files = [p for ext in ("*.cpp", "*.h") for p in (root / "app" / "src").rglob(ext)]
    files += (root / "qml").glob("*.qml")
    return sorted(files)


def messages(ts: Path):
    """(context, source, comment) -> (translation element, numerus, location) of the live entries."""
    try:
        tree = ET.parse(ts)
    except ET.ParseError as e:
        sys.exit(f"{ts}: not a valid .ts file: {e}")
    out, stale = {}, []
    for ctx in tree.getroot().iter("context"):
        name = ctx.findtext("name", "")
        for m in ctx.iter("message"):
            key = (name, m.findtext("source", ""), m.findtext("comment", ""))
            tr = m.find("translation")
            kind = tr.get("type") if tr is not None else None
            if kind in ("vanished", "obsolete"):
                stale.append(key)
                continue
            loc = m.find("location")
            # locations are relative to the .ts file; print them as paths one can open
            where = f"{(ts.parent / loc.get('filename')).resolve()}:{loc.get('line')}" if loc is not None else "?"
            out[key] = (tr, m.get("numerus") == "yes", where)
    return out, stale


def check_entry(key, tr, numerus, where) -> list[str]:
    ctx, source, _ = key
    label = f"{where} [{ctx}] {source!r}"
    if tr is None:
        return [f"{label}: no <translation> element"]
    if tr.get("type") == "unfinished":
        return [f"{label}: unfinished (not translated yet)"]
    texts = [f.text or "" for f in tr.iter("numerusform")] if numerus else [tr.text or ""]
    if not texts or any(not t.strip() for t in texts):
        return [f"{label}: empty translation" + (" (a plural form is empty)" if numerus else "")]
    errors = []
    want_ph = set(PLACEHOLDER.findall(source)) - {"%n"}
    want_tags = sorted(TAG.findall(source))
    want_acc = len(ACCELERATOR.findall(source))
    for t in texts:
        have_ph = set(PLACEHOLDER.findall(t)) - {"%n"}
        if have_ph != want_ph:
            errors.append(f"{label}: placeholders {sorted(have_ph)} in {t!r}, the source has {sorted(want_ph)}")
        if sorted(TAG.findall(t)) != want_tags:
            errors.append(f"{label}: tags {sorted(TAG.findall(t))} in {t!r}, the source has {want_tags}")
        if len(ACCELERATOR.findall(t)) != want_acc:
            errors.append(f"{label}: {len(ACCELERATOR.findall(t))} accelerator(s) '&' in {t!r}, the source has {want_acc}")
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lupdate", required=True, help="path of Qt's lupdate")
    ap.add_argument("--source-dir", required=True, type=Path, help="repository root")
    ap.add_argument("--work-dir", required=True, type=Path, help="scratch folder for the lupdate copy")
    args = ap.parse_args()

    ts_files = sorted((args.source_dir / "translations").glob("*.ts"))
    if not ts_files:
        print(f"no .ts files in {args.source_dir / 'translations'}: nothing ships translated", file=sys.stderr)
        return 1
    sources = i18n_sources(args.source_dir)
    if not sources:
        print(f"no sources under {args.source_dir}/app/src or {args.source_dir}/qml", file=sys.stderr)
        return 1
    args.work_dir.mkdir(parents=True, exist_ok=True)

    failed = False
    for ts in ts_files:
        current, stale = messages(ts)
        errors = [e for key, (tr, num, where) in current.items() for e in check_entry(key, tr, num, where)]

        fresh_ts = args.work_dir / ts.name
        shutil.copyfile(ts, fresh_ts)
        # -I as in the build's lupdate project: without it the C++ parser cannot see the namespaces
        # of the classes, and tr() contexts ("trit::chat::ChatController") would come out unqualified.
        run = subprocess.run([args.lupdate, "-silent", "-no-obsolete", "-locations", "absolute",
                              "-I", str(args.source_dir / "app" / "src"),
                              *map(str, sources), "-ts", str(fresh_ts)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{ts.name}: lupdate failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
            return 1
        fresh, _ = messages(fresh_ts)
        for key, (tr, _, where) in fresh.items():
            if key not in current:
                errors.append(f"{where} [{key[0]}] {key[1]!r}: in the sources but missing from {ts.name}")
        gone = [k for k in current if k not in fresh] + stale
        for key in gone:
            print(f"note: {ts.name} [{key[0]}] {key[1]!r} is no longer in the sources (refresh with lupdate -no-obsolete)")

        if errors:
            failed = True
            print(f"{ts.name}: {len(errors)} problem(s):", file=sys.stderr)
            for e in errors:
                print("  " + e, file=sys.stderr)
        else:
            print(f"{ts.name}: all {len(fresh)} strings of the current sources are translated")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
