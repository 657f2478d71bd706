#!/usr/bin/env bash
# Installs what the report tooling needs, only when it is missing (safe to run again):
#   - Chromium (renders the HTML reports headless, offline)      Debian: chromium, fonts-liberation
#   - a Java runtime (the Allure command line is a Java program)   Debian: default-jre-headless
#   - node and npm (only to install the Allure command line)      Debian: nodejs, npm
#   - the Allure 2 command line, version pinned in tools/allure/package.json, into .tools/allure
#     (git-ignored), so the project finds it at .tools/allure/node_modules/.bin/allure.
# apt-get needs root; the Allure install does not.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PINNED_MANIFEST="${ROOT}/tools/allure/package.json"
ALLURE_DIR="${ROOT}/.tools/allure"
ALLURE_BIN="${ALLURE_DIR}/node_modules/.bin/allure"

say() { printf 'report-deps: %s\n' "$*"; }
die() { printf 'report-deps: ERROR: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
# shellcheck source=tools/apt-packages.sh
. "${ROOT}/tools/apt-packages.sh"

# Reads package.json fields with python3 (always there: the project needs it).
pinned_dependency_version() {  # manifest, dependency name
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["dependencies"][sys.argv[2]])' "$1" "$2"
}
package_version() {  # an installed package's package.json
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$1"
}

have_java() { have java || [ -x "${JAVA_HOME:-/nonexistent}/bin/java" ]; }

missing_apt_packages() {
    have chromium || have chromium-browser || printf '%s\n' chromium fonts-liberation
    have_java || printf '%s\n' default-jre-headless
    have node || printf '%s\n' nodejs
    have npm || printf '%s\n' npm
}

install_allure() {
    local pinned installed=""
    pinned="$(pinned_dependency_version "${PINNED_MANIFEST}" allure-commandline)"
    if [ -f "${ALLURE_DIR}/node_modules/allure-commandline/package.json" ]; then
        installed="$(package_version "${ALLURE_DIR}/node_modules/allure-commandline/package.json")"
    fi
    if [ "${installed}" = "${pinned}" ] && [ -x "${ALLURE_BIN}" ]; then
        say "allure ${pinned} present (${ALLURE_BIN})"
        return 0
    fi
    have npm || die "npm is needed to install the Allure command line; run this script as root to install it"
    say "installing allure-commandline ${pinned} with npm into ${ALLURE_DIR}"
    mkdir -p "${ALLURE_DIR}"
    cp "${PINNED_MANIFEST}" "${ALLURE_DIR}/package.json"
    npm install --prefix "${ALLURE_DIR}" --no-package-lock --no-audit --no-fund --ignore-scripts \
        --omit=dev --loglevel=error >/dev/null
    [ -x "${ALLURE_BIN}" ] || die "npm finished but ${ALLURE_BIN} is missing"
    say "installed allure ${pinned} (${ALLURE_BIN})"
}

main() {
    local missing=()
    mapfile -t missing < <(missing_apt_packages)
    if [ "${#missing[@]}" -gt 0 ]; then
        apt_install_packages "${missing[@]}"
    else
        say "chromium, java, node and npm present"
    fi
    install_allure
}

main "$@"
