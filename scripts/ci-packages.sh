#!/usr/bin/env bash
# Installs, from Debian's packages, what the tests need beyond Node and the machine's own
# PostgreSQL: Chromium for the browser tests (playwright-core drives it and never downloads a
# browser of its own, which this network would refuse) and PgBouncer for the `pgbouncer` test
# project (the tests start it themselves, on a free port).
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing for the tests: ${missing[*]}; install as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing for the tests: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
# The package starts a PgBouncer of its own on port 6432; the tests need none of it.
if [[ " ${missing[*]} " == *" pgbouncer "* ]]; then
  systemctl disable --now pgbouncer >/dev/null 2>&1 || service pgbouncer stop >/dev/null 2>&1 || true
fi
/usr/bin/chromium --version
/usr/sbin/pgbouncer --version | head -n 1
