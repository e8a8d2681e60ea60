#!/usr/bin/env bash
# The md5 of every output a refactoring must keep byte-identical: detect, analyze, landmarks,
# track and redact (photos with and without their metadata, HEIC, a folder with its manifest's
# reproducible fields, Y4M, MP4, masks files drawn and applied), from one binary.
#   Tools/bench/output_md5s.sh BIN PHOTOS_AND_VIDEOS_FOLDER OUT_FOLDER > md5s.txt
# Run it with the build before and after a change and diff the two lists. The inputs are real
# photos and clips (Tools/redaction/realdata.sh makes the set); a JPEG with GPS is made here.
set -euo pipefail
bin=$(realpath "$1"); set_dir=$(realpath "$2"); out=$3
rm -rf "$out"; mkdir -p "$out/in"; out=$(realpath "$out")
photos=$set_dir/photos videos=$set_dir/videos
python3 - "$photos/coco_544.jpg" "$out/in/gps.jpg" <<'PY'
import struct, sys
# A big-endian TIFF: IFD0 (Make "Canon", GPS pointer), a GPS IFD (latitude N 48/1 51/1 0/1).
make = b"Canon\0"
ifd0 = 8; n0 = 2; gps = ifd0 + 2 + 12 * n0 + 4; make_at = gps + 2 + 12 * 2 + 4; rat = make_at + len(make)
t = b"MM\0\x2a" + struct.pack(">I", ifd0)
t += struct.pack(">H", n0) + struct.pack(">HHII", 0x010F, 2, len(make), make_at) + struct.pack(">HHII", 0x8825, 4, 1, gps) + b"\0\0\0\0"
t += struct.pack(">H", 2) + struct.pack(">HHI", 1, 2, 2) + b"N\0\0\0" + struct.pack(">HHII", 2, 5, 3, rat) + b"\0\0\0\0"
t += make + struct.pack(">IIIIII", 48, 1, 51, 1, 0, 1)
app1 = b"Exif\0\0" + t
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:])
PY
cp "$photos/bald_guys.jpg" "$photos/voc_2008_007676.heic" "$out/in/"
mkdir -p "$out/in/folder/sub"; cp "$photos/coco_241.jpg" "$photos/two_faces.jpg" "$out/in/folder/"; cp "$photos/coco_328.jpg" "$out/in/folder/sub/"
cp "$photos/voc_2008_007676.heic" "$out/in/folder/sub/"; echo notes > "$out/in/folder/readme.txt"
ffmpeg -v error -i "$videos/street_270p.mp4" -frames:v 30 -pix_fmt yuv420p -f yuv4mpegpipe "$out/in/street.y4m"
cd "$out"
run() { "$bin" "$@" > /dev/null 2>> "$out/stderr.txt" || echo "exit $? : $*" >> "$out/stderr.txt"; }
json() { local name=$1; shift; "$bin" "$@" > "$out/$name" 2>> "$out/stderr.txt" || echo "exit $? : $*" >> "$out/stderr.txt"; }
json detect.json detect "$photos/crowd_640.jpg"
json detect-tiles.json detect --tiles auto "$photos/crowd_640.jpg"
json detect-video.jsonl detect "$videos/thumbs_up.mp4"
json analyze.json analyze "$photos/two_faces.jpg"
json analyze-video.jsonl analyze --every 20 "$videos/thumbs_up.mp4"
json detect-errors.jsonl detect "$photos/two_faces.jpg" in/missing.jpg in/folder/readme.txt
json track-search.jsonl track --search redact in/street.y4m
json landmarks.json landmarks "$photos/two_faces.jpg"
json track.jsonl track "$videos/thumbs_up.mp4"
run redact in/gps.jpg gps-strip.jpg
run redact in/gps.jpg gps-keep.jpg --keep-metadata
run redact in/gps.jpg gps-location.jpg --keep-metadata --keep-location
run redact in/gps.jpg gps.png --masks gps-masks.jsonl
run redact in/gps.jpg gps-applied.jpg --apply-masks gps-masks.jsonl
run redact in/gps.jpg gps-region.jpg --mask-region 10,10,50,40 --jpeg-quality 70
run redact in/bald_guys.jpg bald.ppm
run redact in/voc_2008_007676.heic heic.jpg
run redact "$photos/crowd_6000.jpg" crowd_6000.jpg
run redact in/folder folder-out
run redact in/street.y4m street.y4m
run redact in/street.y4m street-from-y4m.mp4
run redact "$videos/crowd_270p.mp4" crowd_270p.mp4 --masks crowd-masks.jsonl
run redact "$videos/crowd_270p.mp4" crowd-applied.mp4 --apply-masks crowd-masks.jsonl
# A folder as two shards with JSON progress, a rerun of one (nothing to do), and their merge.
"$bin" redact in/folder sharded --shard 0/2 --progress json 2> progress-0.jsonl || echo "exit $? : shard 0/2" >> stderr.txt
"$bin" redact in/folder sharded --shard 1/2 --progress json 2> progress-1.jsonl || echo "exit $? : shard 1/2" >> stderr.txt
"$bin" redact in/folder sharded --shard 0/2 2>> stderr.txt || echo "exit $? : shard 0/2 again" >> stderr.txt
"$bin" manifest merge sharded/.blazeface > merged.jsonl 2>> stderr.txt || echo "exit $? : merge" >> stderr.txt
rm -f folder-out/.blazeface/*.lock sharded/.blazeface/*.lock   # the PID of the run that held it
# Manifests and progress lines: every field but the times.
for m in folder-out/.blazeface/*.jsonl sharded/.blazeface/*.jsonl progress-*.jsonl merged.jsonl; do
    sed -E 's/"seconds":[0-9.e+-]+,?//' "$m" > "$m.stable"; rm "$m"
done
find . -path ./in -prune -o -type f -print | sort | while read -r f; do echo "$(md5sum < "$f" | cut -c1-32)  $f"; done
