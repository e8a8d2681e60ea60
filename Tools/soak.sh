#!/usr/bin/env bash
# A soak of the live paths (issues 33, 40), not part of CI's default run: 1,000,000 frames pushed
# through the live-stream FaceDetector and FaceAnalysisPipeline faster than they can go (most are
# dropped), only the handler used, reporting resident memory and thread count every tenth of
# the run. Both should be flat after warm-up. Usage: Tools/soak.sh [FRAMES]   (figures: Docs/performance.md, "Soak")
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
frames="${1:-1000000}"
cd "$repo/Examples"
swift build -c release --product LiveSoak 2>&1 | tail -n 1
bin="$repo/Examples/.build/release/LiveSoak"
"$bin" "$repo/Tests/Fixtures/images/face_off_edge_320x240.png" "$frames" detector
"$bin" "$repo/Tests/Fixtures/images/two_faces_1280x853.png" "$frames" analysis
