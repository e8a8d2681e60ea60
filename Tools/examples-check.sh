#!/usr/bin/env bash
# Builds the Examples package and runs each example on the fixtures: DetectFaces over the fixture
# photos, GooglyEyes on a panning video, LiveCamera for one second, then each with bad arguments
# (a usage line and exit 64). Fails if one fails or prints what it should not.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-examples.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$repo/Examples"
echo "examples-check: building Examples/"
swift build -c release 2>&1 | tail -n 1
bin="$repo/Examples/.build/release"
photos="$repo/Tests/Fixtures/images"

lines=$("$bin/DetectFaces" "$photos" | wc -l)
count=$(find "$photos" -maxdepth 1 -type f | wc -l)
[ "$lines" -eq "$count" ] || { echo "examples-check: DetectFaces printed $lines lines for $count photos"; exit 1; }
echo "examples-check: DetectFaces: $lines JSON lines"

"$bin/PanningVideo" "$photos/two_faces_1280x853.png" "$work/in.y4m"
googly=$("$bin/GooglyEyes" "$work/in.y4m" "$work/out.y4m" "$work/frame.png" 4)
echo "examples-check: $googly"
echo "$googly" | grep -q "8 frames, [1-9][0-9]* eyes drawn" || exit 1
[ -s "$work/out.y4m" ] && [ -s "$work/frame.png" ] || { echo "examples-check: GooglyEyes wrote no video or frame"; exit 1; }

live=$("$bin/LiveCamera" "$photos/two_faces_1280x853.png" 1)
echo "examples-check: $live"
echo "$live" | grep -Eq "30 frames sent at 30 fps, [1-9][0-9]* results" || exit 1
# Bad or missing arguments: a usage line and exit 64 (EX_USAGE), never a trap (issue 34).
usage_exit() {
    local status=0
    "$@" >/dev/null 2>"$work/usage.txt" || status=$?
    if [ "$status" -ne 64 ] || ! grep -q "^usage: " "$work/usage.txt"; then
        echo "examples-check: $* exited $status, not 64 with a usage line:"; cat "$work/usage.txt"; exit 1
    fi
}
usage_exit "$bin/DetectFaces"
usage_exit "$bin/DetectFaces" /nonexistent
usage_exit "$bin/PanningVideo"
usage_exit "$bin/PanningVideo" /nonexistent.png "$work/x.y4m"
usage_exit "$bin/GooglyEyes" "$work/in.y4m"
usage_exit "$bin/GooglyEyes" /nonexistent.y4m "$work/x.y4m"
usage_exit "$bin/LiveCamera"
usage_exit "$bin/LiveCamera" /nonexistent.png
usage_exit "$bin/LiveCamera" "$photos/two_faces_1280x853.png" soon
echo "examples-check: bad arguments give a usage line and exit 64"
echo "examples-check: passed"
