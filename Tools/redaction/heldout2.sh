#!/usr/bin/env bash
# A third real set, held out like heldout.sh's: talking heads turning to profile and back (phone
# and webcam clips, portrait and square), an action-recognition clip of a room of people at 340 px,
# 1080p and 240p clips of people, and old and new portraits, from three repositories the redactor
# was never tuned on, taken as they are. Never committed: only this script.
#
#   Tools/redaction/heldout2.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`): KwaiVGI/LivePortrait, TencentARC/GFPGAN, open-mmlab/mmaction2.
# DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout2.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
LP=KwaiVGI+LivePortrait
for d in d0 d3 d6 d9 d13 d14 d20; do listed_get $LP assets/examples/driving/$d.mp4 videos/lp_$d.mp4; done   # heads turning, 480-720 px
for s in s13 s20 s29; do listed_get $LP assets/examples/source/$s.mp4 videos/lp_$s.mp4; done               # portrait clips
for s in s2 s10 s38 s40; do listed_get $LP assets/examples/source/$s.jpg photos/lp_$s.jpg; done
GF=TencentARC+GFPGAN
listed_get $GF inputs/whole_imgs/00.jpg photos/gfp_00.jpg                 # an old photo
listed_get $GF inputs/whole_imgs/10045.png photos/gfp_10045.png           # an old group photo
listed_get $GF inputs/whole_imgs/Blake_Lively.jpg photos/gfp_blake.jpg
MA=open-mmlab+mmaction2
for v in demo demo_skeleton demo_spatiotemporal_det test_video_structuralize; do   # 340x256 to 1080p
    listed_get $MA demo/$v.mp4 videos/mma_$v.mp4
done
echo "heldout2: $(wc -l < "$MAN") files in $DEST"
