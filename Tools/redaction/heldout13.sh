#!/usr/bin/env bash
# A thirteenth real set, held out like heldout.sh's: kinds not met before. Parties and nights out
# (group photos in bars, at a pool, on stairs, cheerleaders; vladmandic/human's samples, some only
# at an older commit), a crowd selfie of hundreds and a posed group (dlunion/DBFace), three people
# lying on a floor (neuralchen/SimSwap), skiers, five children on chairs and a street
# (MVIG-SJTU/AlphaPose), sports close up and in stands (football, baseball, ski race, wheelchair
# curling, wrestling), a ballroom dance with onlookers, a street show crowd, a family indoors,
# men playing go at a table and a cake being cut (open-mmlab/mmpose's test and demo data:
# AI Challenger, COCO, CrowdPose, MPII, OCHuman, PoseTrack), a marching band seen from above,
# a posed girl group and the Academy Awards nominees' photo (yxlijun/S3FD.pytorch), sitcom cast
# photos (justadudewhohacks/face-api.js); and videos: a sitcom scene of people eating at a table
# (raviksharma/blurfaces), a hand-held street walk and a PoseTrack clip (open-mmlab/mmpose).
# Never committed: only this script.
#
#   Tools/redaction/heldout13.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt. Some files are gone from
# their repository's HEAD and are taken at the commit named (REV).
set -euo pipefail
DEST=${1:?usage: heldout13.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos

V=vladmandic+human
for n in 1 2 4 5 6; do listed_get $V samples/in/group-$n.jpg photos/party_group_$n.jpg; done
listed_get $V samples/in/stock-group-1.jpg photos/party_stairs.jpg
listed_get $V samples/in/stock-group-2.jpg photos/cheerleaders.jpg
for n in 8 10 11; do
    REV=38ab0ada4b662c7b9da5b818a8de090368391f88 listed_get $V samples/groups/group$n.jpg photos/party_old_group$n.jpg
done

listed_get dlunion+DBFace datas/selfie.jpg photos/crowd_selfie.jpg
listed_get dlunion+DBFace datas/12_Group_Group_12_Group_Group_12_728.jpg photos/group_posed_728.jpg
listed_get neuralchen+SimSwap demo_file/multi_people.jpg photos/three_on_floor.jpg

A=MVIG-SJTU+AlphaPose
listed_get $A examples/demo/1.jpg photos/skiers.jpg
listed_get $A examples/demo/2.jpg photos/children_chairs.jpg
listed_get $A examples/demo/3.jpg photos/street_shoppers.jpg

P=open-mmlab+mmpose
listed_get $P tests/data/aic/054d9ce9201beffc76e5ff2169d2af2f027002ca.jpg photos/family_indoors.jpg
listed_get $P tests/data/aic/fa436c914fe4a8ec1ec5474af4d3820b84d17561.jpg photos/go_at_table.jpg
listed_get $P tests/data/aic/ff945ae2e729f24eea992814639d59b3bdec8bd8.jpg photos/football_match.jpg
listed_get $P tests/data/coco/000000040083.jpg photos/street_table_bw.jpg
listed_get $P tests/data/coco/000000196141.jpg photos/baseball.jpg
listed_get $P tests/data/coco/000000197388.jpg photos/ski_race.jpg
listed_get $P tests/data/crowdpose/106848.jpg photos/cake_cutting.jpg
listed_get $P tests/data/mpii/005808361.jpg photos/wheelchair_curling.jpg
listed_get $P tests/data/ochuman/003799.jpg photos/football_tackle.jpg
listed_get $P tests/data/ochuman/003896.jpg photos/football_duel.jpg
listed_get $P tests/data/posetrack18/images/val/003418_mpii_test/000000.jpg photos/wrestling_stands.jpg
listed_get $P tests/data/posetrack18/images/val/009473_mpii_test/000000.jpg photos/ballroom_onlookers.jpg
listed_get $P tests/data/posetrack18/images/val/012834_mpii_test/000000.jpg photos/street_show_crowd.jpg

S=yxlijun+S3FD.pytorch
listed_get $S img/0_Parade_marchingband_1_465.jpg photos/marching_band.jpg
listed_get $S img/test.jpg photos/girl_group.jpg
listed_get $S img/test2.jpg photos/oscar_nominees.jpg

for n in 1 2; do listed_get justadudewhohacks+face-api.js examples/images/bbt$n.jpg photos/sitcom_cast_$n.jpg; done

listed_get raviksharma+blurfaces media/friends.mp4 videos/sitcom_table.mp4
listed_get $P demo/resources/demo.mp4 videos/street_walk_handheld.mp4
listed_get $P tests/data/posetrack18/videos/000001_mpiinew_test/000001_mpiinew_test.mp4 videos/posetrack_clip.mp4
echo "heldout13: $(wc -l < "$MAN") files in $DEST"
