#!/usr/bin/env bash
# A ninth real set, held out like heldout.sh's: the inputs of face-reconstruction and
# face-restoration projects never tuned on. cleardusk/3DDFA_V2's example photos and a fork of it
# (pavankumarny/3DDFA_V2_Pavan) with two videos: a man in profile filmed by a laptop camera
# (3456x2234, 60 frames/s, with audio) and a stock clip of a woman at a desk at night, seen in
# three-quarter profile; sczhou/CodeFormer's inputs (old and low-resolution group photos, grey
# portraits, faces in masks, two crops of the 1927 Solvay conference photo);
# yoyo-nb/Thin-Plate-Spline-Motion-Model's talking-head driving clip and source portrait.
# Never committed: only this script.
#
#   Tools/redaction/heldout8.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout8.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
for f in JianzhuGuo.jpg emma.jpg trump_hillary.jpg; do listed_get cleardusk+3DDFA_V2 "examples/inputs/$f" "photos/3ddfa_$f"; done
P=pavankumarny+3DDFA_V2_Pavan
listed_get $P examples/inputs/emma_pose.jpg photos/3ddfa_emma_pose.jpg
listed_get $P examples/inputs/videos/Side.mp4 videos/3ddfa_side.mp4
listed_get $P examples/inputs/videos/Video.mp4 videos/3ddfa_desk.mp4
C=sczhou+CodeFormer
for f in 00.jpg 01.jpg 02.png 03.jpg 04.jpg 05.jpg 06.png; do listed_get $C "inputs/whole_imgs/$f" "photos/cf_whole_$f"; done
for f in 067_David_Beckham_00 089_Miley_Cyrus_00 099_Victoria_Beckham_00 111_Alexa_Chung_00 132_Robert_Downey_Jr_00 \
         158_Jimmy_Fallon_00 161_Zac_Efron_00 169_John_Lennon_00 170_Marilyn_Monroe_00 Einstein01 Einstein02 Hepburn01 Hepburn02; do
    listed_get $C "inputs/gray_faces/$f.png" "photos/cf_gray_$f.png"
done
for f in 00105 00108 00169 00588 00664; do listed_get $C "inputs/masked_faces/$f.png" "photos/cf_masked_$f.png"; done
for f in Solvay_conference_1927_0018 Solvay_conference_1927_2_16; do listed_get $C "inputs/cropped_faces/$f.png" "photos/cf_$f.png"; done
T=yoyo-nb+Thin-Plate-Spline-Motion-Model
listed_get $T assets/driving.mp4 videos/tpsmm_driving.mp4
listed_get $T assets/source.png photos/tpsmm_source.png
echo "heldout8: $(wc -l < "$MAN") files in $DEST"
