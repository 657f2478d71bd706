#!/usr/bin/env bash
# Installs the system packages the namespace lab needs (sshd, ssh, ip, ping, ps), only when missing.
# Idempotent: runs `apt-get update` and `apt-get install` only if a package is not installed yet.
set -euo pipefail

PACKAGES=(openssh-server openssh-client iproute2 iputils-ping procps)

missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "system dependencies present: ${PACKAGES[*]}"
    exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "missing packages ${missing[*]}; run this script as root to install them" >&2
    exit 1
fi

echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
