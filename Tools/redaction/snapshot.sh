# Sourced by realdata.sh and heldout.sh.
# snapshot_get MIRROR_ROOT OWNER+NAME PATH OUT [REV]: one file of a fetched snapshot (at REV,
# default HEAD) into OUT; a missing or empty file stops the script.
snapshot_get() {
    local d="$1/$2/repo"
    [ -d "$d" ] || d="$1/$2"
    git --git-dir="$d" show "${5:-HEAD}:$3" > "$4"
    [ -s "$4" ] || { echo "missing: $2 $3" >&2; exit 1; }
}
