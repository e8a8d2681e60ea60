#!/usr/bin/env bash
# A sixth real set, held out like heldout.sh's: a street seen from a CCTV camera above (1080p,
# 30 frames/s, faces of 15 to 30 pixels: the pedestrian-tracking demo clip of
# theAIGuysCode/yolov4-deepsort), deface's own example street photo (ORB-HD/deface) and the two
# example photos of ultralytics/yolov5 (a bus stop, a portrait pair). Never committed: only this
# script.
#
#   Tools/redaction/heldout5.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout5.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
listed_get theAIGuysCode+yolov4-deepsort data/video/test.mp4 videos/deepsort_test.mp4
listed_get ORB-HD+deface examples/city.jpg photos/deface_city.jpg
listed_get ultralytics+yolov5 data/images/bus.jpg photos/yolo_bus.jpg
listed_get ultralytics+yolov5 data/images/zidane.jpg photos/yolo_zidane.jpg
echo "heldout5: $(wc -l < "$MAN") files in $DEST"
