#!/usr/bin/env bash
# Builds BlazeFace as a user's package would meet it: a clean clone of this repository, tagged,
# depended on *by version* from a new package, built with a plain `swift build -c release` (no
# flags, no environment). Then checks that
#   - a file-reading program finds MediaPipe's detections on the two-face photo (boxes equal,
#     scores and keypoints within 1e-5 of the golden),
#   - a program that detects from BGRA pixels with `import BlazeFace` alone finds the same and
#     links neither libpng nor libjpeg,
#   - neither program links FFmpeg's libraries or libheif (BlazeVideoIO and BlazeImageHEIF are
#     products of their own),
#   - both find the bundled weights through the package's resource bundle, from another folder.
# Usage: Tools/consumer-check.sh [--bench]   (--bench: also time detect() against this repo's build)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
unset BLAZEFACE_TARGET_CPU BLAZEFACE_WEIGHTS

# A clone holds what is committed, as a user's would; tag it 1.0.0.
git clone -q "$repo" "$work/blazeface"
git -C "$work/blazeface" -c user.name=check -c user.email=check@localhost tag -f 1.0.0 >/dev/null

mkdir -p "$work/consumer"
cp -R "$repo/Tools/consumer/Sources" "$work/consumer/"
sed -e "s|@BLAZEFACE_URL@|$work/blazeface|" -e "s|@BLAZEFACE_IDENTITY@|blazeface|" \
    "$repo/Tools/consumer/Package.swift.in" > "$work/consumer/Package.swift"
echo "consumer-check: building a package that depends on BlazeFace 1.0.0 (plain swift build -c release)"
(cd "$work/consumer" && swift build -c release 2>&1 | tail -n 3)
bin="$work/consumer/.build/release"

# Run from an unrelated folder: the weights must come from the resource bundle.
cd "$work"
photo="$repo/Tests/Fixtures/images/two_faces_1280x853.png"
golden="$repo/Tests/Fixtures/goldens/short_range/two_faces_1280x853/detections.json"
"$bin/DetectFile" "$photo" --dump-bgra "$work/frame.bgra" > "$work/file.json"
"$bin/DetectPixels" "$work/frame.bgra" 1280 853 > "$work/pixels.json"

python3 - "$golden" "$work/file.json" "$work/pixels.json" <<'PY'
import json, sys
golden = json.load(open(sys.argv[1]))["tasks"]
for path in sys.argv[2:]:
    ours = json.loads(open(path).read())["detections"]
    assert len(ours) == len(golden), f"{path}: {len(ours)} faces, MediaPipe {len(golden)}"
    worst = 0.0
    for a, b in zip(ours, golden):
        assert a["boundingBox"] == b["boundingBox"], f"{path}: box {a['boundingBox']} != {b['boundingBox']}"
        worst = max(worst, abs(a["categories"][0]["score"] - b["categories"][0]["score"]))
        for p, q in zip(a["keypoints"], b["keypoints"]):
            worst = max(worst, abs(p["x"] - q["x"]), abs(p["y"] - q["y"]))
    assert worst <= 1e-5, f"{path}: differs from MediaPipe by {worst}"
    print(f"consumer-check: {path.split('/')[-1]}: {len(ours)} faces, boxes equal, scores and keypoints within {worst:.2e}")
PY

if ldd "$bin/DetectPixels" | grep -Eq 'libpng|libjpeg'; then
    echo "consumer-check: DetectPixels links an image codec:"; ldd "$bin/DetectPixels" | grep -E 'libpng|libjpeg'; exit 1
fi
ldd "$bin/DetectFile" | grep -q libpng || { echo "consumer-check: DetectFile should link libpng"; exit 1; }
echo "consumer-check: DetectPixels links no libpng and no libjpeg"
# Video (FFmpeg) and HEIF (libheif) are products of their own: a dependent of BlazeFace or
# BlazeImageIO alone links neither.
for program in DetectPixels DetectFile; do
    if ldd "$bin/$program" | grep -Eq 'libav(format|codec|util)|libswscale|libheif'; then
        echo "consumer-check: $program links FFmpeg or libheif:"; ldd "$bin/$program" | grep -E 'libav|libswscale|libheif'; exit 1
    fi
done
echo "consumer-check: DetectPixels and DetectFile link no FFmpeg library and no libheif"

if [ "${1:-}" = "--bench" ]; then
    # Side by side: the dependent's plain build (SSE2), this repository's own (the machine's
    # ISA) and, on x86-64, this repository's built for AVX2 and FMA (haswell), alternating.
    (cd "$repo" && swift build -c release --product blazeface >/dev/null)
    avx2=""
    if [ "$(uname -m)" = "x86_64" ]; then
        (cd "$repo" && BLAZEFACE_TARGET_CPU=haswell swift build -c release --product blazeface --scratch-path .build-haswell >/dev/null)
        avx2="$repo/.build-haswell/release/blazeface"
    fi
    for round in 1 2 3 4 5; do
        "$bin/DetectFile" "$photo" --bench 300 | tail -n 1 | sed "s/^/dependent  /"
        (cd "$repo" && .build/release/blazeface bench --iterations 300 | grep '^detect' | sed "s/^/this repo  /")
        [ -z "$avx2" ] || (cd "$repo" && "$avx2" bench --iterations 300 | grep '^detect' | sed "s/^/AVX2 build /")
    done
fi
echo "consumer-check: passed"
