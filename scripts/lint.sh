#!/usr/bin/env bash
# Enforces the checked-in configurations; fails on the first kind of finding and says which files.
#   1. clang-format (.clang-format, check only) on every C++ file of FORMAT_DIRS;
#   2. clang-tidy (.clang-tidy) on TIDY_FILES, with the build's compile database;
#   3. qmllint on qml/*.qml with the QML modules' import folder, so Trit.App's singleton `App` and the
#      bridges' types resolve and every use of them is checked.
# Usage: scripts/lint.sh [BUILD_DIR]   (default build/debug: configured and built, as scripts/test.sh does)
# TRIT_LINT_FULL=1 runs clang-tidy on every app source with the whole .clang-tidy, clang-analyzer included
# (about 20 s of CPU per file here: minutes, so not in the test command).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/debug}"
start=$(date +%s)
failed=0

# The versioned tools of Debian 12 (scripts/setup.sh installs them): the same formatting everywhere.
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
CLANG_TIDY="${CLANG_TIDY:-clang-tidy-14}"
QMLLINT="${QMLLINT:-/usr/lib/qt6/bin/qmllint}"

# Every C++ file of the project: the app, the engine, the shader tools and all the tests.
FORMAT_DIRS=(app engine shaders/tools tests)

# clang-tidy parses Qt's headers for every file: about 6 s of CPU before any check runs, 16 to 20 s with
# the checks, so all 60 app sources would take many minutes on CI's two cores, and even five took 100 s
# while another build shared the machine. This subset is where its checks (use after move, dangling
# references, needless copies, rounding, missing override) matter most: the code that runs on other
# threads and hands results back: the engine thread, a download, the model manager's workers. (Its
# first run found five problems in exactly these files.) clang-analyzer-* (path-sensitive, the slowest)
# runs only with TRIT_LINT_FULL=1.
TIDY_FILES=(
  app/src/engine_thread/engine_worker.cpp
  app/src/models/download_task.cpp
  app/src/models/model_manager_bridge.cpp
)
TIDY_CHECKS="-clang-analyzer-*"
if [ "${TRIT_LINT_FULL:-0}" = 1 ]; then
  mapfile -t TIDY_FILES < <(git ls-files 'app/*.cpp')
  TIDY_CHECKS=""
fi

# ---- clang-format
mapfile -t cxx < <(git ls-files -- "${FORMAT_DIRS[@]/%//*.cpp}" "${FORMAT_DIRS[@]/%//*.h}")
if ! out=$("$CLANG_FORMAT" --dry-run --Werror "${cxx[@]}" 2>&1); then
  echo "$out" | grep -E "^[^ ].*(warning|error):" | head -40
  echo "lint: clang-format: these files are not formatted; run: $CLANG_FORMAT -i FILE..."
  failed=1
fi
t_format=$(date +%s)

# ---- clang-tidy
# The build's compile database, made readable for clang: GCC's precompiled header is replaced by the
# header it was made from, GCC-only warning options are dropped (they are the compiler's business), and
# a unity build's translation unit (CMake's Unity/unity_N_cxx.cxx, which includes several sources) is
# listed as each of its sources with the same command, so every source has its own entry.
db="$build/lint"
mkdir -p "$db"
python3 - "$build/compile_commands.json" "$db/compile_commands.json" <<'EOF'
import json, re, sys
entries = []
for e in json.load(open(sys.argv[1])):
    cmd = e["command"]
    pch = re.search(r"-include (\S+cmake_pch\.hxx)", cmd)
    if pch:
        header = re.search(r'#include "([^"]+)"', open(pch.group(1)).read())
        cmd = cmd.replace(pch.group(0), "-include " + header.group(1) if header else "")
    cmd = re.sub(r" -Winvalid-pch| -Werror\S*| -Wno-error=\S+", "", cmd)
    if re.search(r"/Unity/unity_\d+_cxx\.cxx$", e["file"]):
        for src in re.findall(r'^#include "([^"]+)"', open(e["file"]).read(), re.M):
            entries.append(dict(e, file=src, command=cmd.replace(e["file"], src)))
    else:
        entries.append(dict(e, command=cmd))
json.dump(entries, open(sys.argv[2], "w"))
EOF
tidy_log="$db/clang-tidy.log"
if ! printf '%s\n' "${TIDY_FILES[@]}" |
    xargs -P2 -n1 "$CLANG_TIDY" -p "$db" --quiet ${TIDY_CHECKS:+"--checks=$TIDY_CHECKS"} >"$tidy_log" 2>&1; then
  grep -E "(warning|error): " "$tidy_log" | grep -v "warnings generated" | sort -u | head -40
  echo "lint: clang-tidy found the above (whole log: $tidy_log)"
  failed=1
fi
t_tidy=$(date +%s)

# ---- qmllint
# Every category counts but two: "deferred-property-id" is a performance hint about ids inside controls'
# contentItem; and of "unqualified" only a delegate's access to an id of its own file is let through
# (the documented pattern; Qt 6.5's `pragma ComponentBehavior: Bound` would mark it): any other name
# qmllint cannot resolve, a typo for instance, is a finding. A line it cannot check carries
# `// qmllint disable` and the reason beside it.
qml_json="$db/qmllint.json"
"$QMLLINT" -I "$build/qml_import" --deferred-property-id disable --json "$qml_json" qml/*.qml >/dev/null 2>&1 || true
if ! python3 - "$qml_json" <<'EOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
problems = 0
for f in report["files"]:
    text = open(f["filename"], encoding="utf-8").read()
    lines = text.split("\n")
    ids = set(re.findall(r"\bid:\s*([A-Za-z_]\w*)", text))
    for w in f["warnings"]:
        line = lines[w["line"] - 1] if w.get("line") else ""
        name = line[w["column"] - 1:w["column"] - 1 + w["length"]] if w.get("column") else ""
        if w["message"] == "Unqualified access" and name in ids:
            continue
        problems += 1
        print(f'{f["filename"]}:{w.get("line")}:{w.get("column")}: {w["type"]}: {w["message"]}')
        print("    " + line.strip())
sys.exit(1 if problems else 0)
EOF
then
  echo "lint: qmllint found the above"
  failed=1
fi
end=$(date +%s)

echo "lint: clang-format $((t_format - start)) s (${#cxx[@]} files), clang-tidy $((t_tidy - t_format)) s" \
     "(${#TIDY_FILES[@]} files), qmllint $((end - t_tidy)) s; $((end - start)) s in all"
if [ "$failed" != 0 ]; then
  echo "lint: FAILED"
  exit 1
fi
echo "lint: clean"
