#!/usr/bin/env bash
# An eighth real set, held out like heldout.sh's: the test pictures of four face and people
# detectors never tuned on. Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB (24 crowd and
# group photos, a 1600-pixel "largest selfie" of hundreds of faces, eight photos of people in
# surgical masks, two of them WebP), deepcam-cn/yolov5-face (a graduation group, the selfie at
# 2048 pixels), ShiqiYu/libfacedetection's two app test photos, and two videos:
# open-mmlab/mmtracking's demo (a street at 1080p in MPEG-4 Part 2, 3 frames/s) and
# ifzhang/ByteTrack's MOT17-01 GIF (a square at night, 420x240). Never committed: only this script.
#
#   Tools/redaction/heldout7.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout7.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
L=Linzaer+Ultra-Light-Fast-Generic-Face-Detector-1MB
for n in 1 2 3 5 6 8 9 10 11 12 13 15 16 17 18 19 20 21 22 23 24 25 26 27; do
    listed_get $L "imgs/$n.jpg" "photos/ul_$n.jpg"
done
for f in img1.jpeg img2.jpeg img3.jpg img4.jpeg img5.jpeg img6.webp img7.webp img8.jpeg; do
    listed_get $L "masked_face/imgs/$f" "photos/ul_masked_$f"
done
listed_get $L tf/imgs/test_input.jpg photos/ul_tf_test_input.jpg
for f in 1.jpg test.jpg; do listed_get deepcam-cn+yolov5-face "data/images/$f" "photos/y5f_$f"; done
listed_get ShiqiYu+libfacedetection mobile/iOS/FaceDetection/test.jpg photos/lfd_ios_test.jpg
listed_get ShiqiYu+libfacedetection mobile/Android/FaceDetection/app/src/main/assets/test2.jpg photos/lfd_android_test2.jpg
listed_get open-mmlab+mmtracking demo/demo.mp4 videos/mmtrack_demo.mp4
listed_get ifzhang+ByteTrack assets/MOT17-01-SDP.gif videos/bytetrack_mot17_01.gif
echo "heldout7: $(wc -l < "$MAN") files in $DEST"
