#!/usr/bin/env bash
# A fourth real set, held out like heldout.sh's: 76 photos from one repository the redactor was
# never tuned on, taken as they are: the face-recognition test photos of serengil/deepface
# (portraits, couples, selfies, a crowd selfie, film stills; one of them a WebP named .jpg) and
# the stock and collage pictures of its README. Never committed: only this script.
#
#   Tools/redaction/heldout3.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds the snapshot as OWNER+NAME/repo (`fetch
# github:serengil/deepface`). DEST/photos and DEST/MANIFEST.txt.
set -euo pipefail
DEST=${1:?usage: heldout3.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
source "$(dirname "$0")/snapshot.sh"
listed_set photos
DF=serengil+deepface
paths=$(git --git-dir="$M/$DF/repo" ls-tree -r --name-only HEAD \
    | grep -E '^tests/unit/dataset/.*\.jpg$|^icon/(stock|celebrity|parental|deepface-realtime|retinaface-results|detector-outputs|face-anti-spoofing|verify-credit)')
for p in $paths; do
    name=$(echo "$p" | tr '/' '_' | sed 's/^tests_unit_dataset_//')
    listed_get $DF "$p" "photos/$name"
done
echo "heldout3: $(wc -l < "$MAN") files in $DEST"
