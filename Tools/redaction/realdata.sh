#!/usr/bin/env bash
# Re-creates the real-footage set for redaction audits (Tools/redaction/audit.py) in DEST:
# photos and videos that nobody in this project made, taken from public repositories' snapshots,
# plus variants derived from them with ffmpeg. The media are never committed: only this script.
#
#   Tools/redaction/realdata.sh DEST [MIRROR_ROOT]
#
# MIRROR_ROOT (default /work/.mirror) holds bare git snapshots as OWNER+NAME/repo, the layout the
# search tool's `fetch github:OWNER/NAME` leaves; the six repositories below must be fetched
# first. Needs git, ffmpeg (libx264) and heif-enc (libheif-examples). Files come out as:
#   DEST/photos/*.jpg|png|heic   photos with faces
#   DEST/videos/*.mp4            videos with faces
#   DEST/empty/*.mp4             real clips without faces (false-mask measurement)
# and DEST/MANIFEST.txt lists each file, its source and its derivation.
#
# Sources (repository : path in it):
#   CMU-Perceptual-Computing-Lab/openpose : examples/media/COCO_val2014_*.jpg (COCO photos),
#       examples/media/video.avi (1280x720 street scene, people walking, small faces)
#   davisking/dlib : examples/faces/*.jpg (PASCAL VOC group photos; bald_guys.jpg 1986x1545,
#       25 faces), dlib/test/ffmpeg_data/MOT20-05-raw_even_shorter.mp4 (MOT20 crowd filmed from
#       above at night, 826x540), dlib/test/ffmpeg_data/elon-musk-smoke.gif (480x272 clip)
#   justadudewhohacks/opencv4nodejs : data/people.mp4 (800x450 crowd walking towards the camera),
#       data/people.jpeg (640x360 crowd), data/got.jpg (960x384 group), data/traffic.mp4
#       (cars from above, no people), data/horses.mp4 (horses on a beach), data/hand-gesture.mp4
#   google-ai-edge/mediapipe-samples : examples/gesture_recognizer/android/app/src/androidTest/
#       assets/test_video.mp4 (1280x720, a woman's face, thumbs up), examples/hand_landmarker/
#       android/app/src/androidTest/assets/test_video.mp4 (640x360, a hand, no face),
#       examples/face_detector/ios/FaceDetectorTests/testImg.jpeg, examples/object_detection/ios/
#       ObjectDetectorTests/coupleanddog.jpeg
#   lamminhthien/Motion_Detector_OpenCV : vtest.avi (1280x720 H.264, a hall filmed from high
#       above, dozens of walking people; not OpenCV's vtest.avi despite the name)
set -euo pipefail
DEST=${1:?usage: realdata.sh DEST [MIRROR_ROOT]}
M=${2:-/work/.mirror}
mkdir -p "$DEST/photos" "$DEST/videos" "$DEST/empty"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MAN="$DEST/MANIFEST.txt"
: > "$MAN"

# get REPO(owner+name) PATH OUT: one file of a snapshot
source "$(dirname "$0")/snapshot.sh"
get() { snapshot_get "$M" "$@"; }
note() { printf '%s\t%s\n' "$1" "$2" >> "$MAN"; }
X264=(-c:v libx264 -preset medium -crf 18 -pix_fmt yuv420p -movflags +faststart)

OP=CMU-Perceptual-Computing-Lab+openpose
DL=davisking+dlib
CV=justadudewhohacks+opencv4nodejs
MP=google-ai-edge+mediapipe-samples
OC=lamminhthien+Motion_Detector_OpenCV

# ---------------------------------------------------------------- photos, as they are
for n in 241 328 395 536 544 564; do
    f=COCO_val2014_000000000$n.jpg
    get $OP examples/media/$f "$DEST/photos/coco_$n.jpg"
    note photos/coco_$n.jpg "$OP examples/media/$f (as is)"
done
for f in 2007_007763 2008_002079 2008_002470 2008_004176 2008_007676; do
    get $DL examples/faces/$f.jpg "$DEST/photos/voc_$f.jpg"
    note photos/voc_$f.jpg "$DL examples/faces/$f.jpg (as is)"
done
get $DL examples/faces/bald_guys.jpg "$DEST/photos/bald_guys.jpg"
note photos/bald_guys.jpg "$DL examples/faces/bald_guys.jpg (as is)"
get $CV data/got.jpg "$DEST/photos/got.jpg";           note photos/got.jpg "$CV data/got.jpg (as is)"
get $CV data/people.jpeg "$DEST/photos/crowd_640.jpg"; note photos/crowd_640.jpg "$CV data/people.jpeg (as is)"
get $MP examples/face_detector/ios/FaceDetectorTests/testImg.jpeg "$DEST/photos/two_faces.jpg"
note photos/two_faces.jpg "$MP examples/face_detector/ios/FaceDetectorTests/testImg.jpeg (as is)"
get $MP examples/object_detection/ios/ObjectDetectorTests/coupleanddog.jpeg "$DEST/photos/couple_dog.jpg"
note photos/couple_dog.jpg "$MP examples/object_detection/ios/ObjectDetectorTests/coupleanddog.jpeg (as is)"

# ---------------------------------------------------------------- photos, derived
# large photos: Lanczos upscales to ~6000 px wide (faces of ~75-200 and ~110-720 px)
ffmpeg -v error -y -i "$DEST/photos/crowd_640.jpg" -vf scale=6000:-2:flags=lanczos -q:v 2 "$DEST/photos/crowd_6000.jpg"
note photos/crowd_6000.jpg "$CV data/people.jpeg, Lanczos-upscaled to 6000 px wide (JPEG q2)"
ffmpeg -v error -y -i "$DEST/photos/bald_guys.jpg" -vf scale=iw*3:ih*3:flags=lanczos -q:v 2 "$DEST/photos/bald_guys_x3.jpg"
note photos/bald_guys_x3.jpg "$DL examples/faces/bald_guys.jpg, Lanczos-upscaled 3x (5958x4635, JPEG q2)"
# a crowd crop (the left half of the group photo) and a HEIC
ffmpeg -v error -y -i "$DEST/photos/bald_guys.jpg" -vf crop=iw/2:ih:0:0 -q:v 2 "$DEST/photos/bald_guys_crop.jpg"
note photos/bald_guys_crop.jpg "$DL examples/faces/bald_guys.jpg, its left half (crop 993x1545)"
ffmpeg -v error -y -i "$DEST/photos/voc_2008_007676.jpg" "$TMP/h.png"
heif-enc -q 80 -o "$DEST/photos/voc_2008_007676.heic" "$TMP/h.png" > /dev/null
note photos/voc_2008_007676.heic "$DL examples/faces/2008_007676.jpg, to HEIC by heif-enc -q 80"

# ---------------------------------------------------------------- videos with faces
get $OP examples/media/video.avi "$TMP/street.avi"
ffmpeg -v error -y -i "$TMP/street.avi" -an "${X264[@]}" "$DEST/videos/street_720p.mp4"
note videos/street_720p.mp4 "$OP examples/media/video.avi (1280x720) to H.264 crf 18 MP4"
ffmpeg -v error -y -i "$TMP/street.avi" -an -vf scale=480:270:flags=area "${X264[@]}" -crf 23 "$DEST/videos/street_270p.mp4"
note videos/street_270p.mp4 "$OP examples/media/video.avi downscaled to 480x270 (area), H.264 crf 23: surveillance resolution"
get $CV data/people.mp4 "$DEST/videos/crowd_450p.mp4"
note videos/crowd_450p.mp4 "$CV data/people.mp4 (800x450 H.264, as is)"
ffmpeg -v error -y -i "$DEST/videos/crowd_450p.mp4" -an -vf scale=480:270:flags=area "${X264[@]}" -crf 23 "$DEST/videos/crowd_270p.mp4"
note videos/crowd_270p.mp4 "$CV data/people.mp4 downscaled to 480x270 (area), H.264 crf 23"
get $DL dlib/test/ffmpeg_data/MOT20-05-raw_even_shorter.mp4 "$DEST/videos/mot20_above.mp4"
note videos/mot20_above.mp4 "$DL dlib/test/ffmpeg_data/MOT20-05-raw_even_shorter.mp4 (826x540, as is): crowd from above, night"
get $OC vtest.avi "$TMP/hall.avi"
ffmpeg -v error -y -i "$TMP/hall.avi" -an -c:v copy "$DEST/videos/hall_above.mp4"
note videos/hall_above.mp4 "$OC vtest.avi (1280x720 H.264) remuxed to MP4: hall filmed from high above"
get $MP examples/gesture_recognizer/android/app/src/androidTest/assets/test_video.mp4 "$DEST/videos/thumbs_up.mp4"
note videos/thumbs_up.mp4 "$MP examples/gesture_recognizer/android/app/src/androidTest/assets/test_video.mp4 (1280x720, as is)"
get $DL dlib/test/ffmpeg_data/elon-musk-smoke.gif "$TMP/smoke.gif"
ffmpeg -v error -y -i "$TMP/smoke.gif" -an "${X264[@]}" "$DEST/videos/smoke_272p.mp4"
note videos/smoke_272p.mp4 "$DL dlib/test/ffmpeg_data/elon-musk-smoke.gif (480x272) to H.264 crf 18: low resolution"
# a pan with zoom over the group photo: faces move and grow (1280x720, 25 fps, 8 s)
ffmpeg -v error -y -loop 1 -framerate 25 -i "$DEST/photos/bald_guys.jpg" -t 8 \
    -vf "crop=iw:iw*9/16,scale=3840:2160:flags=lanczos,zoompan=z='1.6+0.8*on/200':x='(iw-iw/zoom)*on/200':y='(ih-ih/zoom)*(0.3+0.4*on/200)':d=1:s=1280x720:fps=25" \
    -frames:v 200 "${X264[@]}" "$DEST/videos/group_pan_720p.mp4"
note videos/group_pan_720p.mp4 "$DL examples/faces/bald_guys.jpg: its centre cropped to 16:9 (1986x1117), upscaled to 3840x2160 (Lanczos), then, a pan left-to-right with zoom 1.6x-2.4x, 1280x720 H.264, 200 frames"

# ---------------------------------------------------------------- videos without faces
get $CV data/traffic.mp4 "$DEST/empty/traffic.mp4";   note empty/traffic.mp4 "$CV data/traffic.mp4 (640x360, as is): cars from above"
get $CV data/horses.mp4 "$DEST/empty/horses.mp4";     note empty/horses.mp4 "$CV data/horses.mp4 (720x480, as is): horses on a beach"
get $CV data/hand-gesture.mp4 "$DEST/empty/hand_wall.mp4"; note empty/hand_wall.mp4 "$CV data/hand-gesture.mp4 (512x640, as is): a hand before a wall"
get $MP examples/hand_landmarker/android/app/src/androidTest/assets/test_video.mp4 "$DEST/empty/hand_street.mp4"
note empty/hand_street.mp4 "$MP examples/hand_landmarker/android/app/src/androidTest/assets/test_video.mp4 (640x360, as is): a hand, a body without head"

# ---------------------------------------------------------------- manifest: sizes and durations
{
    echo
    echo "# file	bytes	WxH	frames	seconds"
    find "$DEST/photos" "$DEST/videos" "$DEST/empty" -type f | sort | while read -r f; do
        r=$({ ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=width,height,nb_read_packets:format=duration -of csv=p=0:s=x "$f" 2>/dev/null || echo "(HEIC: ffprobe cannot read it)"; } | tr '\n' ' ')
        printf '%s\t%s\t%s\n' "${f#$DEST/}" "$(stat -c %s "$f")" "$r"
    done
} >> "$MAN"
echo "$(find "$DEST/photos" "$DEST/videos" "$DEST/empty" -type f | wc -l) files in $DEST (see $MAN)"
