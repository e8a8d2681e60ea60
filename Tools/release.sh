#!/usr/bin/env bash
# The release (issue 41): a Debian package of `blazeface` that runs on any x86-64 CPU with AVX2
# and FMA and uses AVX-512 where the CPU has it, with no second download. Two builds go in it,
# each with its resource bundle (the models) beside it: one for `haswell` (x86-64-v3: AVX2, FMA,
# BMI, F16C, MOVBE) and one for `skylake-avx512`; /usr/bin/blazeface is a launcher that picks
# one from the CPU's flags at start-up. On an older CPU the haswell build itself refuses, naming
# what is missing (`BuildTarget.unsupportedCPUMessage`). The runtime libraries (FFmpeg's, libheif,
# libpng, libjpeg-turbo) are the package's dependencies, found from the binary's own links.
#
#   bash Tools/release.sh [VERSION]         -> dist/blazeface_VERSION_amd64.deb
#   RELEASE_CHECK=1 bash Tools/release.sh   also checks it: the haswell build under
#                                           `qemu-x86_64 -cpu Haswell` (an emulated CPU without
#                                           AVX-512) gives the native detections, the AVX-512
#                                           build refuses there with its reason, and both builds'
#                                           speed side by side (Docs/performance.md)
#
# Install: apt install ./dist/blazeface_VERSION_amd64.deb (Tools/fresh-machine-check.sh does, on
# a fresh Debian 12 root). Needs dpkg-deb; the check needs qemu-user (installed if missing).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
[ "$(uname -m)" = x86_64 ] || { echo "release.sh: makes the x86-64 package (this machine is $(uname -m))"; exit 1; }
version="${1:-0.0.$(git rev-list --count HEAD 2>/dev/null || echo 0)}"
builds=(haswell skylake-avx512)
for cpu in "${builds[@]}"; do
    echo "release: building for $cpu"
    BLAZEFACE_TARGET_CPU="$cpu" swift build -c release --static-swift-stdlib --product blazeface \
        --scratch-path "$repo/.build-release/$cpu" 2>&1 | tail -n 1
done

stage="$(mktemp -d "${TMPDIR:-/tmp}/blazeface-release.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
root="$stage/blazeface_${version}_amd64"
# One copy of the models, beside each binary through a link (the same bundle from both builds).
cp -R ".build-release/${builds[0]}/release/BlazeFace_BlazeWeights.resources" "$root/usr/lib/blazeface/" 2>/dev/null \
    || { mkdir -p "$root/usr/lib/blazeface" && cp -R ".build-release/${builds[0]}/release/BlazeFace_BlazeWeights.resources" "$root/usr/lib/blazeface/"; }
for cpu in "${builds[@]}"; do
    mkdir -p "$root/usr/lib/blazeface/$cpu"
    install -m 755 -s ".build-release/$cpu/release/blazeface" "$root/usr/lib/blazeface/$cpu/blazeface"   # symbols stripped: 95 MB to 63
    diff -rq ".build-release/$cpu/release/BlazeFace_BlazeWeights.resources" "$root/usr/lib/blazeface/BlazeFace_BlazeWeights.resources" >/dev/null \
        || { echo "release: the builds' model bundles differ"; exit 1; }
    ln -s ../BlazeFace_BlazeWeights.resources "$root/usr/lib/blazeface/$cpu/BlazeFace_BlazeWeights.resources"
done
mkdir -p "$root/usr/bin" "$root/usr/share/doc/blazeface" "$root/DEBIAN"
cat > "$root/usr/bin/blazeface" <<'EOF'
#!/bin/sh
# blazeface's launcher: the AVX-512 build where the CPU has what it was built for, else the
# AVX2 + FMA build; on a CPU without those, the reason (every instruction of the builds is
# VEX-encoded: they would die on the first one).
flags=$(grep -m1 '^flags' "${BLAZEFACE_CPUINFO:-/proc/cpuinfo}" 2>/dev/null)
for f in avx2 fma bmi1 bmi2 f16c movbe; do
    case " $flags " in *" $f "*) ;; *)
        echo "blazeface: this CPU lacks $f, which this package's builds need (x86-64-v3: Intel Haswell, AMD Excavator or later);" \
             "build from source with BLAZEFACE_TARGET_CPU=generic instead (Docs/package.md)" >&2
        exit 1 ;;
    esac
done
for f in avx512f avx512bw avx512dq avx512vl avx512cd; do
    case " $flags " in *" $f "*) ;; *) exec /usr/lib/blazeface/haswell/blazeface "$@" ;; esac
done
exec /usr/lib/blazeface/skylake-avx512/blazeface "$@"
EOF
chmod 755 "$root/usr/bin/blazeface"
cp README.md Weights/LICENSE-MediaPipe Weights/LICENSE-CenterFace "$root/usr/share/doc/blazeface/"   # the models' licences

# The packages that hold the libraries the binaries link directly (their NEEDED entries; none
# from the Swift toolchain), each found where the dynamic linker finds it.
depends=$(for cpu in "${builds[@]}"; do readelf -d ".build-release/$cpu/release/blazeface"; done \
    | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u | while read -r name; do
        path=$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ { print $NF; exit }')
        [ -n "$path" ] || { echo "release: $name not found" >&2; exit 1; }
        dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null || { echo "release: no package holds $path" >&2; exit 1; }
    done | cut -d: -f1 | sort -u | grep -v '^libc6$' | paste -sd, | sed 's/,/, /g')
cat > "$root/DEBIAN/control" <<EOF
Package: blazeface
Version: $version
Architecture: amd64
Maintainer: BlazeFace developers <blazeface@invalid>
Depends: libc6, $depends
Section: graphics
Priority: optional
Description: face detection, analysis and anonymisation in pure Swift
 MediaPipe's BlazeFace and face models re-implemented in Swift with no ML runtime:
 detect, track and analyse faces in photos and video, and hide them (blur, pixelate,
 black) in MP4, MOV, MKV, WebM, JPEG, PNG and HEIC files, audio and timing kept.
 Runs on any x86-64 CPU with AVX2 and FMA; uses AVX-512 where present.
EOF
mkdir -p dist
dpkg-deb --build --root-owner-group "$root" "dist/blazeface_${version}_amd64.deb" >/dev/null
echo "release: dist/blazeface_${version}_amd64.deb ($(du -h "dist/blazeface_${version}_amd64.deb" | cut -f1)); Depends: libc6, $depends"

[ -n "${RELEASE_CHECK:-}" ] || exit 0
# The check: the portable build on an emulated Haswell (no AVX-512) against itself natively.
command -v qemu-x86_64 >/dev/null || { apt-get install -y -qq qemu-user >/dev/null 2>&1 || sudo apt-get install -y -qq qemu-user >/dev/null; }
photo="$repo/Tests/Fixtures/images/two_faces_1280x853.png"
haswell="$root/usr/lib/blazeface/haswell/blazeface" avx512="$root/usr/lib/blazeface/skylake-avx512/blazeface"
"$haswell" detect "$photo" > "$stage/native.jsonl"
qemu-x86_64 -cpu Haswell "$haswell" detect "$photo" > "$stage/qemu.jsonl"
cmp -s "$stage/native.jsonl" "$stage/qemu.jsonl" \
    || { echo "release check: the haswell build's detections differ under qemu -cpu Haswell"; diff "$stage/native.jsonl" "$stage/qemu.jsonl" | head; exit 1; }
echo "release check: the haswell build under qemu-x86_64 -cpu Haswell gives the native detections: $(cut -c1-100 "$stage/native.jsonl")..."
if qemu-x86_64 -cpu Haswell "$avx512" detect "$photo" > /dev/null 2> "$stage/refusal.txt"; then
    echo "release check: the AVX-512 build ran on an emulated Haswell"; exit 1
fi
echo "release check: the AVX-512 build there refuses: $(grep -v '^qemu-x86_64: warning' "$stage/refusal.txt")"
"$avx512" detect "$photo" > "$stage/avx512.jsonl"
if cmp -s "$stage/native.jsonl" "$stage/avx512.jsonl"; then same="the same detections, byte for byte"; else same="detections that differ (see below)"; diff "$stage/native.jsonl" "$stage/avx512.jsonl" | head -4; fi
echo "release check: the AVX-512 build gives $same"
for cpu in "${builds[@]}"; do
    printf 'release check: %-15s ' "$cpu"
    "$root/usr/lib/blazeface/$cpu/blazeface" bench --iterations 300 | grep -E '^(inference|detect) ' | tr -s ' ' | paste -sd';'
done
