#!/usr/bin/env bash
# Runs the test suite under the thread sanitizer, then the address sanitizer, each in its own
# build folder (.build-tsan, .build-asan) so the normal build is untouched. Extra arguments go to
# `swift test`, e.g. a filter:
#
#   bash Tools/sanitizers.sh                                   # everything (slow: inference under TSan is ~10x slower)
#   bash Tools/sanitizers.sh --filter 'RunningModeTests|FaceTrackerTests|Y4MTests'
#
# Exits non-zero if either run reports a problem (the sanitizers make a failing test process exit non-zero).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/install-deps.sh
echo "== thread sanitizer"
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" swift test --sanitize=thread --build-path .build-tsan "$@"
echo "== address sanitizer"
ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" swift test --sanitize=address --build-path .build-asan "$@"
echo "== both clean"
