#!/usr/bin/env bash
# Installs Debian's Chromium for the /docs browser test when it is missing. playwright-core
# drives this browser and never downloads one of its own (this network would refuse it).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing at /usr/bin/chromium; install it as root: apt-get install -y chromium" >&2
  exit 1
fi
echo "Installing Chromium for the browser test"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
