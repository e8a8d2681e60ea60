#!/usr/bin/env bash
# A fifth real set, held out like heldout.sh's: talking heads and what is made of them, from two
# repositories the redactor was never tuned on, taken as they are: OpenTalker/video-retalking's
# input clips (phone and webcam faces filling the frame, turning, blinking) and its ablation
# video (a grid of faces side by side), OpenTalker/SadTalker's reference clips (two speeches
# filmed for broadcast), its result GIFs (animated faces, GIF read as video) and its source
# pictures (photos, full-body shots, paintings). Never committed: only this script.
#
#   Tools/redaction/heldout4.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout4.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
VR=OpenTalker+video-retalking
for n in 1 2 3 4 5; do listed_get $VR examples/face/$n.mp4 videos/vr_face$n.mp4; done
listed_get $VR docs/static/videos/Ablation.mp4 videos/vr_ablation.mp4
listed_get $VR docs/static/images/teaser.png photos/vr_teaser.png
ST=OpenTalker+SadTalker
listed_get $ST examples/ref_video/WDA_AlexandriaOcasioCortez_000.mp4 videos/st_wda_aoc.mp4
listed_get $ST examples/ref_video/WDA_KatieHill_000.mp4 videos/st_wda_kh.mp4
for g in example_crop example_crop_still example_full example_full_crop resize_good resize_no; do
    listed_get $ST docs/$g.gif videos/st_$g.gif
done
for p in $(git --git-dir="$M/$ST/repo" ls-tree -r --name-only HEAD | grep -E '^examples/source_image/'); do
    listed_get $ST "$p" "photos/st_$(basename "$p")"
done
echo "heldout4: $(wc -l < "$MAN") files in $DEST"
