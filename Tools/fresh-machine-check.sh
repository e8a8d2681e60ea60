#!/usr/bin/env bash
# The fresh-machine check (issue 41): a new Debian 12 root made by debootstrap from the
# distribution's mirror, the Swift toolchain copied in as swift.org's Debian 12 instructions set
# it up (its own dependencies; the toolchain's package mirror, if this machine has one), a clean
# clone of this repository, and then, inside it (chroot), exactly the README's two commands,
# read from README.md: the first builds and runs the tool, the second runs the tests, which must
# pass with none skipped. With a package made by Tools/release.sh (dist/*.deb), it is also
# installed there with apt and run on an MP4 and a HEIC.
#
#   sudo bash Tools/fresh-machine-check.sh [ROOT]     (default /var/tmp/blazeface-fresh; made anew)
#   FRESH_TEMPLATE=DIR ...                             copy DIR, a root debootstrap made and nobody entered
#
# Needs root, debootstrap (installed if missing) and the mirror in /etc/apt; takes about half
# an hour on 2 cores. Not part of CI (which runs on a prepared machine); figures in the closing
# notes and Docs/package.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${1:-/var/tmp/blazeface-fresh}"
[ "$(id -u)" = 0 ] || { echo "fresh-machine-check: needs root (debootstrap, chroot)"; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
mirror="$(grep -m1 -hoE 'https?://[^ ]+/debian/?$' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true)"
mirror="${mirror:-http://deb.debian.org/debian}"
swift_root="$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)"   # e.g. /opt/swift
log() { echo "fresh-machine-check: $*"; }
elapsed() { echo $(( $(date +%s) - $1 )); }

umount_all() { for m in dev/pts dev proc sys; do umount -l "$root/$m" 2>/dev/null || true; done; }
trap umount_all EXIT
umount_all
rm -rf "$root"
start=$(date +%s)
if [ -n "${FRESH_TEMPLATE:-}" ]; then
    # FRESH_TEMPLATE=DIR: a copy of a root debootstrap made earlier and never entered (saves its minutes).
    log "copying the untouched debootstrap root $FRESH_TEMPLATE to $root"
    cp -a "$FRESH_TEMPLATE" "$root"
else
    log "debootstrap bookworm from $mirror into $root"
    debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 \
        || { tail -n 20 "$root.debootstrap.log"; exit 1; }
fi
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null && rm -f "$root/etc/apt/sources.list" || true
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"; mount --rbind /sys "$root/sys"; mount --rbind /dev "$root/dev"
log "root made in $(elapsed "$start") s"

# The toolchain, as swift.org installs it on Debian 12 (its dependencies), not this project's.
step=$(date +%s)
chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils git gnupg2 libc6-dev \
    libcurl4-openssl-dev libedit2 libgcc-12-dev libncurses-dev libncurses6 libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config \
    python3 tzdata unzip zlib1g-dev ca-certificates sudo >/dev/null'
mkdir -p "$root$swift_root"
cp -a "$swift_root/." "$root$swift_root/"
if [ -d /opt/swift-packages ] && grep -q swift-packages /etc/gitconfig 2>/dev/null; then
    # This machine serves GitHub's Swift packages from a local mirror: the fresh root sees the same.
    mkdir -p "$root/opt/swift-packages" && cp -a /opt/swift-packages/. "$root/opt/swift-packages/"
    cp /etc/gitconfig "$root/etc/gitconfig"
fi
git clone --quiet "$repo" "$root/work/blazeface"
log "toolchain at $swift_root and a clean clone in $(elapsed "$step") s"

readme_command() {   # the command line after "# N." in README.md's "Two commands" block
    awk -v n="$1" '/^## Two commands/ { inside = 1 } inside && $0 ~ "^# " n "\\." { getline; print; exit }' "$repo/README.md"
}
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH="$swift_root/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        /bin/bash -c "cd /work/blazeface && $1"
}
first="$(readme_command 1)"; second="$(readme_command 2)"
[ -n "$first" ] && [ -n "$second" ] || { log "README.md's two commands not found"; exit 1; }
step=$(date +%s)
log "1: $first"
in_root "$first" > "$root.first.log" 2>&1 || { tail -n 30 "$root.first.log"; log "the README's first command failed"; exit 1; }
log "1: passed in $(elapsed "$step") s (apt installs included)"
step=$(date +%s)
log "2: $second"
in_root "$second" > "$root.second.log" 2>&1 || { grep -E "✘|error:" "$root.second.log" | head -n 30; log "the README's second command failed"; exit 1; }
summary="$(grep -E "Test run with [0-9]+ tests" "$root.second.log" | tail -n 1)"
skipped="$(grep -cE "skipped|↳ .*skipped" "$root.second.log" || true)"
log "2: passed in $(elapsed "$step") s: $summary; $skipped skipped"
[ "$skipped" = 0 ] || { grep -E "skipped" "$root.second.log" | head; log "tests were skipped"; exit 1; }

deb="$(ls -t "$repo"/dist/blazeface_*_amd64.deb 2>/dev/null | head -n 1 || true)"
if [ -n "$deb" ]; then
    step=$(date +%s)
    cp "$deb" "$root/tmp/"
    in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb") >/dev/null" \
        || { log "apt install of $(basename "$deb") failed"; exit 1; }
    # An MP4 and a HEIC made in the root from the bundled photo, redacted by the installed tool from a plain folder.
    in_root "mkdir -p /tmp/try && cd /tmp/try && ffmpeg -v error -y -loop 1 -framerate 25 -i /work/blazeface/Tests/Fixtures/images/two_faces_1280x853.png \
        -frames:v 25 -vf scale=640:-2 -pix_fmt yuv420p clip.mp4 && heif-enc -q 60 -o photo.heic /work/blazeface/Tests/Fixtures/images/two_faces_1280x853.png >/dev/null \
        && command -v blazeface && blazeface redact clip.mp4 clip-redacted.mp4 --no-progress && blazeface redact photo.heic photo-redacted.jpg \
        && test -s clip-redacted.mp4 && test -s photo-redacted.jpg" > "$root.deb.log" 2>&1 \
        || { cat "$root.deb.log"; log "the installed package failed"; exit 1; }
    log "package: $(basename "$deb") installed with apt and redacted an MP4 and a HEIC in $(elapsed "$step") s: $(grep -E 'masked' "$root.deb.log" | paste -sd' ' | cut -c1-160)"
fi
log "passed in $(elapsed "$start") s"
