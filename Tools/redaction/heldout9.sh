#!/usr/bin/env bash
# A tenth real set, held out like heldout.sh's: kinds of footage not met before. A football
# broadcast (the Bundesliga clip of Kaggle's DFL competition, in
# PranjalSrivastava361/Football_analysis_system), a dash-camera compilation of pedestrians
# crossing (DevinP6lluste/AI_CarAndPedestrianTracker), overhead fisheye frames of a lunch room
# and of YouTube videos (duanzhiihao/RAPiD, the CEPDOF set), and iPhone portrait-mode JPEGs
# carrying a depth map and a person matte (shu223/iOS-Depth-Sampler). Never committed: only
# this script.
#
#   Tools/redaction/heldout9.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshots as OWNER+NAME/repo (`fetch
# github:OWNER/NAME`). DEST/photos, DEST/videos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout9.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos videos
listed_get PranjalSrivastava361+Football_analysis_system input_videos/08fd33_4.mp4 videos/football_dfl.mp4
listed_get DevinP6lluste+AI_CarAndPedestrianTracker "Pedestrians Compilation.mp4" videos/dashcam_pedestrians.mp4
R=duanzhiihao+RAPiD
listed_get $R images/Lunch2_000001.jpg photos/fisheye_lunch.jpg
for f in $(git --git-dir="$(snapshot_git_dir $R)" ls-tree -r --name-only HEAD images/tiny_val | grep -E 'ytb_[0-9]+\.jpg$' | sort -u | head -8); do
    listed_get $R "$f" "photos/fisheye_$(basename "$f")"
done
D=shu223+iOS-Depth-Sampler
listed_get $D iOS-Depth-Sampler/Resources/image-with-depth.jpg photos/iphone_portrait_depth.jpg
listed_get $D iOS-Depth-Sampler/Resources/image-with-matte.jpg photos/iphone_portrait_matte.jpg
listed_get $D README_resources/depth_baby_histoeq.jpg photos/iphone_depth_baby.jpg
echo "heldout9: $(wc -l < "$MAN") files in $DEST"
