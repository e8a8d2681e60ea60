#!/usr/bin/env bash
# Installs the system libraries the build needs (libpng and libjpeg-turbo through pkg-config), if missing.
# Debian/Ubuntu; uses sudo when not root. Safe to run again: it does nothing when all is there.
set -euo pipefail
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libpng && pkg-config --exists libjpeg; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq libpng-dev pkg-config
# libjpeg-turbo: Debian's package, or Ubuntu's name for it.
$SUDO apt-get install -y -qq libjpeg62-turbo-dev || $SUDO apt-get install -y -qq libjpeg-turbo8-dev
