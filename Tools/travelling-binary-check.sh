#!/usr/bin/env bash
# The binary that travels (issue 35, Docs/clusters.md): `blazeface` built with
# --static-swift-stdlib, copied with its resource bundle to a temporary folder, needs no library
# from the Swift toolchain (ldd), and runs there with an empty environment; as root, also with
# the toolchain's folder hidden (a private mount namespace with an empty folder over it).
# Builds the binary first (a relink when the release build is already there).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
swift build -c release --static-swift-stdlib --product blazeface 2>&1 | tail -n 1
bin="$repo/.build/release/blazeface"
toolchain="$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/.." && pwd)"   # e.g. /opt/swift/usr
work="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-travel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/blazeface"
cp -R "$repo/.build/release/BlazeFace_BlazeWeights.resources" "$work/"
cp "$repo/Tests/Fixtures/images/astronaut.png" "$work/photo.png"
libs=$(ldd "$work/blazeface")
if echo "$libs" | grep -E "libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime|$toolchain|not found"; then
    echo "travelling-binary-check: the binary still needs the libraries above"
    exit 1
fi
echo "travelling-binary-check: $(du -h "$work/blazeface" | cut -f1) binary, $(echo "$libs" | wc -l) shared libraries, none from the Swift toolchain"
run() {
    cd "$work" && env -i PATH=/usr/bin:/bin ./blazeface detect photo.png > detect.jsonl \
        && env -i PATH=/usr/bin:/bin ./blazeface redact photo.png redacted.jpg 2>/dev/null \
        && grep -q '"detections":\[{' detect.jsonl && test -s redacted.jpg
}
run || { echo "travelling-binary-check: the copied binary failed to run"; exit 1; }
echo "travelling-binary-check: ran from $work with an empty environment: $(cut -c1-90 "$work/detect.jsonl")..."
if [ "$(id -u)" = 0 ] && unshare -m --propagation private sh -c "mount -t tmpfs none '$toolchain'" 2>/dev/null; then
    rm -f "$work/detect.jsonl" "$work/redacted.jpg"
    unshare -m --propagation private sh -c "mount -t tmpfs none '$toolchain' && ! test -e '$toolchain/bin/swift' && cd '$work' \
        && env -i PATH=/usr/bin:/bin ./blazeface detect photo.png > detect.jsonl \
        && env -i PATH=/usr/bin:/bin ./blazeface redact photo.png redacted.jpg 2>/dev/null" \
        && grep -q '"detections":\[{' "$work/detect.jsonl" && test -s "$work/redacted.jpg" \
        || { echo "travelling-binary-check: failed with $toolchain hidden"; exit 1; }
    echo "travelling-binary-check: ran again with $toolchain hidden"
else
    echo "travelling-binary-check: (no private mount namespace here: the toolchain was not hidden, only off every path)"
fi
echo "travelling-binary-check: passed"
