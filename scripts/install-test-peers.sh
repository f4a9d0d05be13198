#!/usr/bin/env bash
# The real protocol peers the tests start on loopback, from Debian's packages: OpenSSH's sshd,
# net-snmp's snmpd (and its command-line tools), inetutils' telnetd. Tests start and stop their
# own instances with configurations they write; nothing here is started as a service.
set -euo pipefail
packages=(openssh-server snmpd snmp inetutils-telnetd)
packages+=(tftp-hpa) # the TFTP client that uploads to D.tftpServer in test/tftp.test.ts
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
