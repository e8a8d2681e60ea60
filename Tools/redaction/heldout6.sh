#!/usr/bin/env bash
# A seventh real set, held out like heldout.sh's: the test photos of three face-analysis and
# anonymisation projects, never tuned on. deepinsight/insightface (InspireFace's test
# pictures: portraits, profiles and tilted heads, eyes closed, masks, a crowd at a table,
# pictures stored turned 90, 180 and 270 degrees with no EXIF to say so), serengil/retinaface's
# test set (a couple, a group, a crowd) and hukkelas/deep_privacy2's example photos (G7 leaders,
# a government, a football player). Never committed: only this script.
#
#   Tools/redaction/heldout6.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout6.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos
IF=cpp-package/inspireface/test_res/data
for f in RD/d1.jpeg RD/d2.jpeg RD/d3.jpeg RD/d4.jpeg RD/d5.jpeg bulk/Nathalie_Baye_0002.jpg bulk/Rob_Lowe_0001.jpg \
         bulk/blur.jpg bulk/face_sample.png bulk/image_T1.jpeg bulk/jntm.jpg bulk/kun.jpg bulk/mask2.jpg bulk/r0.jpg bulk/r90.jpg \
         bulk/r180.jpg bulk/r270.jpg bulk/rgb_fake.jpg bulk/view.jpg bulk/woman_search.jpeg bulk/yifei.jpg emotion/anger.png \
         emotion/happy.png emotion/sad.png pose/left_face.jpeg pose/left_wryneck.png pose/lower_face.jpeg pose/right_face.png \
         pose/right_wryneck.png pose/rise_face.jpeg reaction/close_eyes.jpeg reaction/open_eyes.png rotate/rot_0.jpg \
         rotate/rot_90.jpg rotate/rot_180.jpg rotate/rot_270.jpg; do
    listed_get deepinsight+insightface "$IF/$f" "photos/if_$(echo "$f" | tr '/' '_')"
done
for f in Tom_Hanks_54745.png mask_white.jpg mask_blue.jpg t1.jpg; do
    listed_get deepinsight+insightface "python-package/insightface/data/images/$f" "photos/if_$f"
done
for f in couple.jpg img11.jpg img3.jpg; do listed_get serengil+retinaface "tests/dataset/$f" "photos/rf_$f"; done
for f in erling.jpg g7_leaders.jpg regjeringen.jpg; do listed_get hukkelas+deep_privacy2 "media/$f" "photos/dp2_$f"; done
echo "heldout6: $(wc -l < "$MAN") files in $DEST"
