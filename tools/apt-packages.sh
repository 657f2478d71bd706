# Shared by tools/install-system-deps.sh and tools/install-report-deps.sh (sourced, not run): installs Debian
# packages with apt-get as root and says which versions it installed. The sourcing script defines say() and die().
# Another install may hold the apt/dpkg locks: apt-get waits for the dpkg lock itself (DPkg::Lock::Timeout);
# the package lists lock of "update" is retried here.

APT_LOCK_TIMEOUT_S="${APT_LOCK_TIMEOUT_S:-600}"

apt_update() {
    local attempt
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        if apt-get -o DPkg::Lock::Timeout="${APT_LOCK_TIMEOUT_S}" update -qq; then
            return 0
        fi
        say "apt-get update failed (attempt ${attempt}; another package install may hold the lock); retrying in 10 s"
        sleep 10
    done
    die "apt-get update kept failing; check the network and /etc/apt/sources.list*"
}

# Installs the given packages (root only; otherwise one line saying how) and reports each installed version.
apt_install_packages() {
    local packages=("$@") package
    if [ "$(id -u)" -ne 0 ]; then
        die "missing system packages: ${packages[*]}. Run this script as root (sudo $0), or: apt-get install --no-install-recommends ${packages[*]}"
    fi
    export DEBIAN_FRONTEND=noninteractive
    say "installing with apt-get: ${packages[*]}"
    apt_update
    apt-get -o DPkg::Lock::Timeout="${APT_LOCK_TIMEOUT_S}" install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
    for package in "${packages[@]}"; do
        say "installed ${package} ($(dpkg-query -W -f='${Version}' "${package}"))"
    done
}
