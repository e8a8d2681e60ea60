#!/usr/bin/env bash
# A twelfth real set, held out like heldout.sh's: kinds not met before. Faces across skin
# tones (FairFace's test photos, dchen236/FairFace), street crowds with sunglasses and caps
# (YonghaoHe/LFFD-A-Light-and-Fast-Face-Detector-for-Edge-Devices), hard hats on building sites,
# one at night (wujixiu/helmet-detection, dhananjay2403/helmet-guard), video-conference gallery
# screenshots and photos with sunglasses, a face mask and a hand near the face
# (gommy15/Zoom-Face-Detection-Lab-); and videos: a portrait-format webcam clip
# (ZuoyanL/EngagementDectection), a news clip and building-site stock footage with hard hats
# (wujixiu/helmet-detection, dhananjay2403/helmet-guard), and a street clip from a hand-held
# camera (mer1in/jhGPUPSc3w5). Never committed: only this script.
#
#   Tools/redaction/heldout12.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt. Some files are gone from
# their repository's HEAD and are taken at the commit named (REV).
set -euo pipefail
DEST=${1:?usage: heldout12.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos

R=dchen236+FairFace
listed_get $R test/race_Black.jpg photos/fairface_black.jpg
listed_get $R test/race_Latino.jpg photos/fairface_latino.jpg
listed_get $R test/race_Middle_Eastern.jpg photos/fairface_middle_eastern.jpg
listed_get $R test/race_Asian.jpg photos/fairface_asian.jpg
listed_get $R test/race_White.jpg photos/fairface_white.jpg
listed_get $R examples/female.png photos/fairface_example_female.png
listed_get $R examples/male.png photos/fairface_example_male.png

for n in 1 2 3 5 6; do
    listed_get YonghaoHe+LFFD-A-Light-and-Fast-Face-Detector-for-Edge-Devices \
        face_detection/deploy_tensorrt/debug_image/test$n.jpg photos/crowd_lffd_$n.jpg
done

for n in 001 002 003 004 005; do
    listed_get wujixiu+helmet-detection old-version/test_imgs/$n.jpg photos/hardhat_gdut_$n.jpg
done
for n in 001460 001766 002098 test_image; do
    listed_get dhananjay2403+helmet-guard test_images/$n.jpg photos/hardhat_guard_$n.jpg
done

Z=gommy15+Zoom-Face-Detection-Lab-
for f in real_test.png real_test2.png real_test3.png screenshot.jpg screenshot.png test_image.png \
         zoom1.jpg zoom2.png zoom3.jpg; do
    listed_get $Z mtcnn-master/image/$f photos/videocall_$f
done
listed_get $Z mtcnn-master/image/zoom4.PNG photos/videocall_zoom4.png
for f in three_people.jpg people2.jpg people3.jpg people5.jpg withmask.jpg halfface.jpg leftface.jpg; do
    listed_get $Z mtcnn-master/image/$f photos/occluded_$f
done

REV=9c09493e9574cacf77af58fb8dfb68dbb54fc13c listed_get ZuoyanL+EngagementDectection data/test.mp4 videos/webcam_portrait.mp4
listed_get wujixiu+helmet-detection old-version/videos/1.mp4 videos/hardhat_news.mp4
listed_get dhananjay2403+helmet-guard videos/test_video.mp4 videos/hardhat_site.mp4
listed_get dhananjay2403+helmet-guard videos/test_video2.mp4 videos/hardhat_site_1080p.mp4
REV=8926d39cc17f22ab5e09ae80daa59e49f2fae194 listed_get mer1in+jhGPUPSc3w5 video/P1033651.mp4 videos/street_handheld.mp4
echo "heldout12: $(wc -l < "$MAN") files in $DEST"
