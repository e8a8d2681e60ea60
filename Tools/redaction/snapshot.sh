# Sourced by realdata.sh, heldout.sh and heldout2.sh.
# snapshot_get MIRROR_ROOT OWNER+NAME PATH OUT [REV]: one file of a fetched snapshot (at REV,
# default HEAD) into OUT; a missing or empty file stops the script.
snapshot_get() {
    git --git-dir="$(snapshot_git_dir "$2" "$1")" show "${5:-HEAD}:$3" > "$4"
    [ -s "$4" ] || { echo "missing: $2 $3" >&2; exit 1; }
}

# snapshot_git_dir OWNER+NAME [MIRROR_ROOT]: the snapshot's git directory (bare, or a .git inside).
snapshot_git_dir() {
    local d="${2:-$M}/$1/repo"
    [ -d "$d" ] || d="${2:-$M}/$1"
    if [ -d "$d/.git" ]; then echo "$d/.git"; else echo "$d"; fi
}

# For the sets whose files are taken as they are (heldout.sh, heldout2.sh), with DEST and M set:
# listed_set KIND...: the folders DEST/KIND, and DEST/MANIFEST.txt ($MAN) started empty;
# listed_get OWNER+NAME PATH OUT: one file into DEST/OUT (at $REV, default HEAD), listed in $MAN.
listed_set() {
    for k in "$@"; do mkdir -p "$DEST/$k"; done
    MAN="$DEST/MANIFEST.txt"
    : > "$MAN"
}
listed_get() {
    snapshot_get "$M" "$1" "$2" "$DEST/$3" "${REV:-HEAD}"
    printf '%s\t%s %s\n' "$3" "$1" "$2" >> "$MAN"
}
