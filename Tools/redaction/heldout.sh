#!/usr/bin/env bash
# A second real set, held out: photos and clips from four repositories the redactor was never
# tuned on, taken as they are (no variants), for checking a change from outside the set that
# Tools/redaction/realdata.sh builds. Never committed: only this script.
#
#   Tools/redaction/heldout.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`): ageitgey/face_recognition, biubug6/Pytorch_Retinaface,
# timesler/facenet-pytorch, intel-iot-devkit/sample-videos. DEST/photos and DEST/videos, and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
mkdir -p "$DEST/photos" "$DEST/videos"
MAN="$DEST/MANIFEST.txt"
: > "$MAN"
get() {
    local d="$M/$1/repo"
    [ -d "$d" ] || d="$M/$1"
    git --git-dir="$d" show "HEAD:$2" > "$DEST/$3"
    [ -s "$DEST/$3" ] || { echo "missing: $1 $2" >&2; exit 1; }
    printf '%s\t%s %s\n' "$3" "$1" "$2" >> "$MAN"
}
FR=ageitgey+face_recognition
RF=biubug6+Pytorch_Retinaface
FN=timesler+facenet-pytorch
IN=intel-iot-devkit+sample-videos
get $FR examples/short_hamilton_clip.mp4 videos/hamilton.mp4          # 640x360, a stage, two people
get $FN examples/video.mp4 videos/opera.mp4                          # 1920x1080, an opera house crowd
get $RF curve/test.jpg photos/retina_test.jpg                        # 1024x624, baseball fans
get $FN data/multiface.jpg photos/multiface.jpg                      # 1200x630, six faces
get $FR examples/two_people.jpg photos/two_people.jpg
get $FR examples/knn_examples/test/obama_and_biden.jpg photos/obama_biden.jpg   # 2000x1428
get $FR examples/lin-manuel-miranda.png photos/lmm.png               # RGBA PNG
get $FR examples/knn_examples/test/kit_with_rose.jpg photos/kit_rose.jpg
get $FR tests/test_images/32bit.png photos/rgba32.png                # RGBA PNG
get $FR examples/obama-240p.jpg photos/obama_240p.jpg                # 427x240
get $IN asl_gestures/please.mkv videos/asl_please.mkv            # 640x480, a person signing
get $IN asl_gestures/sorry.mkv videos/asl_sorry.mkv              # hands over the face
get $IN preview/classroom.gif videos/classroom.gif               # 480x270 GIFs: a classroom,
get $IN preview/face-demographics-walking.gif videos/walking.gif # people walking to the camera,
get $IN preview/head-pose-face-detection-female-and-male.gif videos/head_pose.gif
get $IN preview/store-aisle-detection.gif videos/store_aisle.gif # a store seen from above
echo "heldout: $(wc -l < "$MAN") files in $DEST"
