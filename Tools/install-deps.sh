#!/usr/bin/env bash
# Installs the system libraries the build needs, found through pkg-config, if missing:
#   libpng and libjpeg-turbo (BlazeImageIO), FFmpeg's libavformat, libavcodec, libavutil and
#   libswscale (BlazeVideoIO), libheif (BlazeImageHEIF); and the ffmpeg command, with which the
#   tests make their videos, heif-enc (libheif-examples), with which they make their HEIC
#   photos, and Chromium with its driver and Selenium, with which CI tests the review page.
#   Debian/Ubuntu; uses sudo when not root. Safe to run again: it does
#   nothing when all is there.
set -euo pipefail
if command -v pkg-config >/dev/null 2>&1 && command -v ffmpeg >/dev/null 2>&1 && command -v heif-enc >/dev/null 2>&1 \
   && command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && /usr/bin/python3 -c "import selenium" 2>/dev/null \
   && pkg-config --exists libpng libjpeg libavformat libavcodec libavutil libswscale libheif; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq pkg-config libpng-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libheif-dev ffmpeg libheif-examples
# The review page's browser test (Tools/review/browser_test.py): headless Chromium driven by Selenium.
$SUDO apt-get install -y -qq chromium chromium-driver python3-selenium
# libjpeg-turbo: Debian's package, or Ubuntu's name for it.
$SUDO apt-get install -y -qq libjpeg62-turbo-dev || $SUDO apt-get install -y -qq libjpeg-turbo8-dev
