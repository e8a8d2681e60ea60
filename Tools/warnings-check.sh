#!/usr/bin/env bash
# Fails on any compiler warning from this package's own targets (Sources/, Tests/; not
# .build/checkouts) in a build from clean of the release products and of the tests (issue 34).
# SCRATCH_PATH (default: a new temporary folder, so that the build is from clean and the
# checkout's .build is left as is) is the build folder; CI, on a fresh clone, passes .build so
# that the tests reuse the build. The release build is the one that travels (--static-swift-stdlib,
# as the README's first command and Tools/travelling-binary-check.sh build it), so that CI builds it once.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
scratch="${SCRATCH_PATH:-$(mktemp -d "${TMPDIR:-/tmp}/blazeface-warnings.XXXXXX")/build}"
log="$(mktemp "${TMPDIR:-/tmp}/blazeface-warnings-log.XXXXXX")"
trap 'rm -f "$log"' EXIT
swift build -c release --static-swift-stdlib --scratch-path "$scratch" >> "$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
swift build --build-tests --scratch-path "$scratch" >> "$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
own=$(grep -E "^($repo/)?(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [ -n "$own" ]; then
    echo "warnings-check: $(printf '%s\n' "$own" | wc -l) warning(s) from this package's targets:"
    printf '%s\n' "$own"
    exit 1
fi
echo "warnings-check: no warning from this package's targets (release and tests, built in $scratch)"
