#!/usr/bin/env bash
# The real protocol peers the tests start on loopback, from Debian's packages: OpenSSH's sshd,
# net-snmp's snmpd (and its command-line tools), inetutils' telnetd, PostgreSQL and Redis, and
# Chromium for the web console's browser tests. Tests start and stop their
# own instances with configurations they write; nothing here is started as a service.
set -euo pipefail
packages=(openssh-server snmpd snmp inetutils-telnetd)
packages+=(tftp-hpa) # the TFTP client that uploads to D.tftpServer in test/bridges/tftp/tftp.test.ts
packages+=(postgresql redis-server) # the scale-out store and queue: tests start throwaway instances (initdb/pg_ctl, redis-server) in temp folders
packages+=(chromium) # the browser test/api/console/browser.test.ts drives through playwright-core (/usr/bin/chromium)
packages+=(iproute2) # `ip netns`: scripts/readme-check.mjs puts the README's device (10.0.0.7) in a namespace
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || true
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The throwaway local user the sshd tests log in as (test/helpers/sshd.ts): a known password,
# a login shell, nothing else. Made once, as root; a test run as root makes it itself if missing.
SSH_TEST_USER=driverbox-ssh
SSH_TEST_PASSWORD=driverbox-ssh-test-only
if ! id "$SSH_TEST_USER" >/dev/null 2>&1; then
  $sudo useradd --create-home --shell /bin/bash "$SSH_TEST_USER"
  echo "$SSH_TEST_USER:$SSH_TEST_PASSWORD" | $sudo chpasswd
fi
