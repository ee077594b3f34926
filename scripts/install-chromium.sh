#!/usr/bin/env sh
# Install Debian's chromium for the browser tests, unless it is there already.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "papercat: the browser tests need Debian's chromium; run as root: apt-get install chromium" >&2
  exit 1
fi
echo "papercat: installing Debian chromium for the browser tests"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
