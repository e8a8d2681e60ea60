#!/usr/bin/env bash
# BlazeFace as the packages that depend on it meet it, in one build: a clean clone of this
# repository, tagged 1.0.0, depended on *by version* from a new package built with a plain
# `swift build -c release` (no flags, no environment). The package holds
#   - the two consumer programs of Tools/consumer/ (a file-reading one and a pixels-only one),
#   - every README sample (a ```swift block whose first line is `// usage: NAME ARGS`),
#   - every program of Examples/,
# and the check then
#   1. runs the consumer programs on the two-face photo: MediaPipe's detections (boxes equal,
#      scores and keypoints within 1e-5 of the golden), found through the package's resource
#      bundle from another folder; the pixels-only one links neither libpng nor libjpeg, and
#      neither links FFmpeg or libheif (BlazeVideoIO and BlazeImageHEIF are products of their own);
#   2. runs each README sample with its ARGS filled in (PHOTO: the two-face photo; VIDEO.y4m:
#      eight frames made from it; VIDEO.mp4: the same as H.264 with an AAC track): a sample that
#      fails to compile, throws or prints nothing fails the check;
#   3. runs the examples on the fixtures, then each with bad arguments (a usage line, exit 64).
# One build serves the three, as each dependent would build the library the same way.
# Usage: Tools/dependents-check.sh [--bench]   (--bench: also time detect() against this repo's build)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-dependents.XXXXXX")"
trap 'rm -rf "$work"' EXIT
unset BLAZEFACE_TARGET_CPU BLAZEFACE_WEIGHTS
say() { echo "dependents-check: $*"; }

# A clone holds what is committed, as a user's would; tag it 1.0.0.
git clone -q "$repo" "$work/blazeface"
git -C "$work/blazeface" -c user.name=check -c user.email=check@localhost tag -f 1.0.0 >/dev/null

pkg="$work/dependent"
mkdir -p "$pkg/Sources"
cp -R "$repo/Tools/consumer/Sources/." "$pkg/Sources/"
cp -R "$repo/Examples/Sources/." "$pkg/Sources/"
examples=$(ls "$repo/Examples/Sources")
samples=$(python3 - "$repo/README.md" "$pkg/Sources" <<'PY'
import os, re, sys
names = []
for block in re.findall(r"```swift\n(.*?)```", open(sys.argv[1]).read(), re.S):
    m = re.match(r"// usage: (\w+)", block.split("\n", 1)[0])
    if m:
        os.makedirs(f"{sys.argv[2]}/{m.group(1)}", exist_ok=True)
        open(f"{sys.argv[2]}/{m.group(1)}/main.swift", "w").write(block)
        names.append(m.group(1))
print(" ".join(names))
PY
)
[ -n "$samples" ] || { say "no README samples found"; exit 1; }
product() { echo ".product(name: \"$1\", package: \"blazeface\")"; }
every="$(for p in BlazeFace BlazeImageIO BlazeVideoIO FaceTracking MeshAnalysis FaceRedaction CenterFaceNet BlazeModel VisionTasks BlazeThreads BlazeTensor; do printf '%s, ' "$(product $p)"; done)"
{
    echo '// swift-tools-version: 6.1'
    echo 'import PackageDescription'
    echo 'let package = Package(name: "Dependent", platforms: [.macOS(.v15)],'
    echo "    dependencies: [.package(url: \"$work/blazeface\", from: \"1.0.0\")],"
    echo '    targets: ['
    # Exactly the consumer's products: what each links is checked below.
    echo "        .executableTarget(name: \"DetectFile\", dependencies: [$(product BlazeFace), $(product BlazeImageIO)]),"
    echo "        .executableTarget(name: \"DetectPixels\", dependencies: [$(product BlazeFace)]),"
    for name in $examples $samples; do echo "        .executableTarget(name: \"$name\", dependencies: [$every]),"; done
    echo '    ])'
} > "$pkg/Package.swift"
say "building one package that depends on BlazeFace 1.0.0 (plain swift build -c release): consumer, README samples ($samples), examples ($(echo $examples))"
(cd "$pkg" && swift build -c release 2>&1 | tail -n 3)
bin="$pkg/.build/release"

# 1. The consumer programs, run from an unrelated folder: the weights must come from the resource bundle.
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
    print(f"dependents-check: {path.split('/')[-1]}: {len(ours)} faces, boxes equal, scores and keypoints within {worst:.2e}")
PY
# grep reads all of ldd's output (no -q): `ldd | grep -q` under pipefail fails (or, in an `if`,
# passes) at random when grep stops reading early and ldd dies of SIGPIPE.
if ldd "$bin/DetectPixels" | grep -E 'libpng|libjpeg' > /dev/null; then
    say "DetectPixels links an image codec:"; ldd "$bin/DetectPixels" | grep -E 'libpng|libjpeg'; exit 1
fi
ldd "$bin/DetectFile" | grep libpng > /dev/null || { say "DetectFile should link libpng"; exit 1; }
for program in DetectPixels DetectFile; do
    if ldd "$bin/$program" | grep -E 'libav(format|codec|util)|libswscale|libheif' > /dev/null; then
        say "$program links FFmpeg or libheif:"; ldd "$bin/$program" | grep -E 'libav|libswscale|libheif'; exit 1
    fi
done
say "DetectPixels links no libpng and no libjpeg; neither consumer program links FFmpeg or libheif"

# 2. The README's samples, as written.
"$bin/PanningVideo" "$photo" "$work/video.y4m"
ffmpeg -v error -y -i "$work/video.y4m" -f lavfi -i sine=frequency=440:sample_rate=48000 -shortest -c:v libx264 -c:a aac "$work/video.mp4"
for name in $samples; do
    usage=$(grep -m1 "^// usage: $name" "$pkg/Sources/$name/main.swift" | sed "s|^// usage: $name||")
    args=$(echo "$usage" | sed -e "s|VIDEO.y4m|$work/video.y4m|" -e "s|VIDEO.mp4|$work/video.mp4|" -e "s|PHOTO|$photo|")
    # shellcheck disable=SC2086
    output=$("$bin/$name" $args)
    [ -n "$output" ] || { say "README sample $name printed nothing"; exit 1; }
    say "README sample $name: $(echo "$output" | wc -l) lines, first: $(echo "$output" | head -n 1 | cut -c1-100)"
done

# 3. The examples on the fixtures.
photos="$repo/Tests/Fixtures/images"
lines=$("$bin/DetectFaces" "$photos" | wc -l)
count=$(find "$photos" -maxdepth 1 -type f | wc -l)
[ "$lines" -eq "$count" ] || { say "DetectFaces printed $lines lines for $count photos"; exit 1; }
say "DetectFaces: $lines JSON lines"
googly=$("$bin/GooglyEyes" "$work/video.y4m" "$work/out.y4m" "$work/frame.png" 4)
say "$googly"
echo "$googly" | grep "8 frames, [1-9][0-9]* eyes drawn" > /dev/null || exit 1
[ -s "$work/out.y4m" ] && [ -s "$work/frame.png" ] || { say "GooglyEyes wrote no video or frame"; exit 1; }
live=$("$bin/LiveCamera" "$photo" 1)
say "$live"
echo "$live" | grep -E "30 frames sent at 30 fps, [1-9][0-9]* results" > /dev/null || exit 1
# Bad or missing arguments: a usage line and exit 64 (EX_USAGE), never a trap (issue 34).
usage_exit() {
    local status=0
    "$@" >/dev/null 2>"$work/usage.txt" || status=$?
    if [ "$status" -ne 64 ] || ! grep -q "^usage: " "$work/usage.txt"; then
        say "$* exited $status, not 64 with a usage line:"; cat "$work/usage.txt"; exit 1
    fi
}
usage_exit "$bin/DetectFaces"
usage_exit "$bin/DetectFaces" /nonexistent
usage_exit "$bin/PanningVideo"
usage_exit "$bin/PanningVideo" /nonexistent.png "$work/x.y4m"
usage_exit "$bin/GooglyEyes" "$work/video.y4m"
usage_exit "$bin/GooglyEyes" /nonexistent.y4m "$work/x.y4m"
usage_exit "$bin/LiveCamera"
usage_exit "$bin/LiveCamera" /nonexistent.png
usage_exit "$bin/LiveCamera" "$photo" soon
say "the examples' bad arguments give a usage line and exit 64"

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
say "passed"
