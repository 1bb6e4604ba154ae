#!/usr/bin/env bash
# Installs, from Debian's packages, what the tests need beyond Node and the machine's own
# PostgreSQL: Chromium for the browser tests (playwright-core drives it and never downloads a
# browser of its own, which this network would refuse) and PgBouncer for the `pgbouncer` test
# project (the tests start it themselves, on a free port), and promtool (Debian's package
# prometheus) for the metrics test's `promtool check metrics`.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
[ -x /usr/bin/promtool ] || missing+=(prometheus)
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
# The packages start a PgBouncer (port 6432) and a Prometheus of their own; the tests need
# neither.
for service in pgbouncer prometheus; do
  if [[ " ${missing[*]} " == *" ${service} "* ]]; then
    systemctl disable --now "$service" >/dev/null 2>&1 || service "$service" stop >/dev/null 2>&1 || true
  fi
done
/usr/bin/chromium --version
/usr/sbin/pgbouncer --version | head -n 1
/usr/bin/promtool --version 2>&1 | head -n 1
