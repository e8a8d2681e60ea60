#!/usr/bin/env bash
# A second real set, held out: photos and clips from six repositories the redactor was never
# tuned on, taken as they are (no variants), for checking a change from outside the set that
# Tools/redaction/realdata.sh builds. Never committed: only this script.
#
#   Tools/redaction/heldout.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`): ageitgey/face_recognition, biubug6/Pytorch_Retinaface,
# timesler/facenet-pytorch, intel-iot-devkit/sample-videos, nokiatech/heif (HEIC photos from
# older commits of its web pages: a crowd, a grid, an overlay, alpha, an image burst),
# facebookresearch/sam2 (720p phone clips: a person with a dog, a juggler, hands with no face).
# DEST/photos, DEST/videos, DEST/empty (no face) and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos empty
FR=ageitgey+face_recognition
RF=biubug6+Pytorch_Retinaface
FN=timesler+facenet-pytorch
IN=intel-iot-devkit+sample-videos
listed_get $FR examples/short_hamilton_clip.mp4 videos/hamilton.mp4          # 640x360, a stage, two people
listed_get $FN examples/video.mp4 videos/opera.mp4                          # 1920x1080, an opera house crowd
listed_get $RF curve/test.jpg photos/retina_test.jpg                        # 1024x624, baseball fans
listed_get $FN data/multiface.jpg photos/multiface.jpg                      # 1200x630, six faces
listed_get $FR examples/two_people.jpg photos/two_people.jpg
listed_get $FR examples/knn_examples/test/obama_and_biden.jpg photos/obama_biden.jpg   # 2000x1428
listed_get $FR examples/lin-manuel-miranda.png photos/lmm.png               # RGBA PNG
listed_get $FR examples/knn_examples/test/kit_with_rose.jpg photos/kit_rose.jpg
listed_get $FR tests/test_images/32bit.png photos/rgba32.png                # RGBA PNG
listed_get $FR examples/obama-240p.jpg photos/obama_240p.jpg                # 427x240
listed_get $IN asl_gestures/please.mkv videos/asl_please.mkv            # 640x480, a person signing
listed_get $IN asl_gestures/sorry.mkv videos/asl_sorry.mkv              # hands over the face
listed_get $IN preview/classroom.gif videos/classroom.gif               # 480x270 GIFs: a classroom,
listed_get $IN preview/face-demographics-walking.gif videos/walking.gif # people walking to the camera,
listed_get $IN preview/head-pose-face-detection-female-and-male.gif videos/head_pose.gif
listed_get $IN preview/store-aisle-detection.gif videos/store_aisle.gif # a store seen from above
NH=nokiatech+heif
for f in images/crowd_1440x960 images/cheers_1440x960 images/random_collection_1440x960 \
         overlay_grid_alpha/grid_960x640 overlay_grid_alpha/overlay_1000x680 overlay_grid_alpha/alpha_1440x960 \
         image_sequences/bird_burst; do
    REV=b05c0aed788dc90b91877ec82df68ee9d48b0fd6 listed_get $NH content/$f.heic photos/$(basename $f).heic
done
REV=665f9fca4ba6cbe46c72f6f5da6ecf6a77f3ab9f listed_get $NH content/heifv2/bothie_1440x960.heic photos/bothie_1440x960.heic
SA=facebookresearch+sam2
listed_get $SA demo/data/gallery/01_dog.mp4 videos/dog.mp4
listed_get $SA demo/data/gallery/05_default_juggle.mp4 videos/juggle.mp4
listed_get $SA demo/data/gallery/04_coffee.mp4 empty/coffee.mp4          # hands making coffee, no face
echo "heldout: $(wc -l < "$MAN") files in $DEST"
