#!/usr/bin/env bash
# Fails on any compiler warning from this package's own targets (Sources/, Tests/; not
# .build/checkouts) in a build from clean of the release products and of the tests (issue 34).
# BUILD_DIR (default: a temporary folder) is the scratch path, so the checkout's .build is left as is.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
scratch="${BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/blazeface-warnings.XXXXXX")}"
log="$scratch/build.log"
mkdir -p "$scratch"
: > "$log"
swift build -c release --scratch-path "$scratch/build" >> "$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
swift build --build-tests --scratch-path "$scratch/build" >> "$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
own=$(grep -E "^($repo/)?(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$own" ]; then
    echo "warnings-check: $(printf '%s\n' "$own" | wc -l) warning(s) from this package's targets:"
    printf '%s\n' "$own"
    exit 1
fi
echo "warnings-check: no warning from this package's targets (release and tests, from clean)"
