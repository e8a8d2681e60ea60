#!/usr/bin/env bash
# Runs the README's Swift samples as they stand: every ```swift block whose first line is
# `// usage: NAME ARGS` becomes executable NAME of a package that depends on this checkout, is
# built, and is run with ARGS filled in (PHOTO: the two-face photo; VIDEO.y4m: eight frames made
# from it; VIDEO.mp4: the same as H.264 with an AAC track). A sample that fails to compile, throws or prints nothing fails the check.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-readme.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/MakeVideo"
cp "$repo/Examples/Sources/PanningVideo/main.swift" "$work/Sources/MakeVideo/main.swift"

names=$(python3 - "$repo/README.md" "$work/Sources" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
names = []
for block in re.findall(r"```swift\n(.*?)```", text, re.S):
    first = block.split("\n", 1)[0]
    m = re.match(r"// usage: (\w+)", first)
    if not m:
        continue
    name = m.group(1)
    os.makedirs(f"{sys.argv[2]}/{name}", exist_ok=True)
    open(f"{sys.argv[2]}/{name}/main.swift", "w").write(block)
    names.append(name)
print(" ".join(names))
PY
)
[ -n "$names" ] || { echo "readme-check: no samples found"; exit 1; }
products='.product(name: "BlazeFace", package: "BlazeFace"), .product(name: "BlazeImageIO", package: "BlazeFace"), .product(name: "FaceTracking", package: "BlazeFace"), .product(name: "FaceAnalysis", package: "BlazeFace"), .product(name: "FaceRedaction", package: "BlazeFace"), .product(name: "BlazeVideoIO", package: "BlazeFace")'
{
    echo '// swift-tools-version: 6.1'
    echo 'import PackageDescription'
    echo "let package = Package(name: \"ReadmeSamples\", platforms: [.macOS(.v15)],"
    echo "    dependencies: [.package(name: \"BlazeFace\", path: \"$repo\")],"
    echo "    targets: ["
    for name in MakeVideo $names; do echo "        .executableTarget(name: \"$name\", dependencies: [$products]),"; done
    echo "    ])"
} > "$work/Package.swift"
cd "$work"
echo "readme-check: building samples: $names"
swift build -c release 2>&1 | tail -n 1
photo="$repo/Tests/Fixtures/images/two_faces_1280x853.png"
.build/release/MakeVideo "$photo" "$work/video.y4m"
ffmpeg -v error -y -i "$work/video.y4m" -f lavfi -i sine=frequency=440:sample_rate=48000 -shortest -c:v libx264 -c:a aac "$work/video.mp4"
for name in $names; do
    usage=$(grep -m1 "^// usage: $name" "Sources/$name/main.swift" | sed "s|^// usage: $name||")
    args=$(echo "$usage" | sed -e "s|VIDEO.y4m|$work/video.y4m|" -e "s|VIDEO.mp4|$work/video.mp4|" -e "s|PHOTO|$photo|")
    # shellcheck disable=SC2086
    output=$(.build/release/$name $args)
    [ -n "$output" ] || { echo "readme-check: $name printed nothing"; exit 1; }
    echo "readme-check: $name: $(echo "$output" | wc -l) lines, first: $(echo "$output" | head -n 1 | cut -c1-100)"
done
echo "readme-check: passed"
