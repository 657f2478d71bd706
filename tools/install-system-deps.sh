#!/usr/bin/env bash
# Installs every program the namespace lab starts and the acceptance checks run on its nodes (sshd, ssh,
# ip, ping, ethtool, ...), only when missing, then checks each with `command -v`.
# The programs and their Debian packages are listed once, in pytest_gpufabric/lab/system-tools.txt (the
# lab's preflight reads the same file). Idempotent: apt-get runs only when something is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_FILE="${ROOT}/pytest_gpufabric/lab/system-tools.txt"
# Packages the project's tests need beyond the lab's programs (one package per entry).
EXTRA_PACKAGES=(python3)  # /usr/bin/python3: the switch account of the switch lab (tests/lab/switchkit.py)
export PATH="${PATH}:/usr/local/sbin:/usr/sbin:/sbin"

say() { printf 'system-deps: %s\n' "$*"; }
die() { printf 'system-deps: ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source=tools/apt-packages.sh
. "${ROOT}/tools/apt-packages.sh"

[ -r "${TOOLS_FILE}" ] || die "cannot read ${TOOLS_FILE}"
declare -A PACKAGE_OF=()
while read -r line; do
    line="${line%%#*}"  # comments
    read -r tool package rest <<< "${line}" || true
    [ -n "${tool:-}" ] || continue
    [ -n "${package}" ] && [ -z "${rest}" ] || die "${TOOLS_FILE}: expected 'PROGRAM PACKAGE', got: ${tool} ${package} ${rest}"
    PACKAGE_OF["${tool}"]="${package}"
done < "${TOOLS_FILE}"

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; }

# Packages of programs that `command -v` does not find, and extra packages not installed.
missing_packages() {
    local tool package
    for tool in "${!PACKAGE_OF[@]}"; do
        command -v "${tool}" >/dev/null 2>&1 || printf '%s\n' "${PACKAGE_OF[${tool}]}"
    done
    for package in "${EXTRA_PACKAGES[@]}"; do
        installed "${package}" || printf '%s\n' "${package}"
    done
}

missing_tools() {
    local tool
    for tool in "${!PACKAGE_OF[@]}"; do
        command -v "${tool}" >/dev/null 2>&1 || printf '%s (Debian package %s)\n' "${tool}" "${PACKAGE_OF[${tool}]}"
    done | sort
}

main() {
    local packages=()
    mapfile -t packages < <(missing_packages | sort -u)
    if [ "${#packages[@]}" -eq 0 ]; then
        say "all ${#PACKAGE_OF[@]} programs of the lab present"
        return 0
    fi
    apt_install_packages "${packages[@]}"
    local still
    still="$(missing_tools | paste -sd ',' - | sed 's/,/, /g')"
    [ -z "${still}" ] || die "apt-get installed ${packages[*]} but these programs are still missing: ${still}"
}

main "$@"
