#!/usr/bin/env bash
#
# Installs what building and testing Parley needs on Debian 12, skipping whatever is
# already there. Safe to run any number of times; asks nothing.
#
#   Tools/scripts/setup.sh          what building and testing need (`make test`)
#   Tools/scripts/setup.sh --build  what building needs, and nothing for the test servers
#                                   (`make demo`)
#
#   Debian: libcurl4-openssl-dev, libssl-dev, pkg-config, zlib1g-dev (the CCurl, CLibCrypto
#           and CZlib modules),
#           nginx-light (nginx with TLS, HTTP/2 and the echo module), openssl, curl,
#           tinyproxy (an HTTP proxy) and microsocks (a SOCKS5 proxy) (the test servers), tmux (the terminal parley-fetch's progress bar is tested in)
#   PyPI:   httpbin, gunicorn and brotlicffi, pinned in test-servers-requirements.txt
#
# The Swift toolchain itself is not installed here: it must already be on PATH.
# Runs as root, or as a user allowed to run `sudo` without a password.

set -euo pipefail

build_only=false
case ${1-} in
    "") ;;
    --build) build_only=true ;;
    *) printf 'usage: %s [--build]\n' "$0" >&2; exit 2 ;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/test-servers-requirements.txt"

export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n env DEBIAN_FRONTEND=noninteractive)
else
    as_root=(false)  # Only reached when something is missing; fails with a clear message below.
fi

# MARK: - Debian packages

# In Debian 12 `nginx-light` is the `nginx` binary (built with the SSL and HTTP/2 modules)
# plus the echo module, which the test servers' /upload uses to read a whole body.
apt_packages=(libcurl4-openssl-dev libssl-dev pkg-config zlib1g-dev ca-certificates)
$build_only || apt_packages+=(nginx-light libnginx-mod-http-echo openssl curl time tmux tinyproxy microsocks)

is_installed() {
    [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}

missing=()
for package in "${apt_packages[@]}"; do
    is_installed "$package" || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
    log "installing ${missing[*]}"
    [[ ${as_root[0]-} != false ]] || die "root is needed to install ${missing[*]}: run this script as root"

    # Installing a package with a service must not start that service: the tests run their
    # own nginx on free ports and want nothing listening on port 80. policy-rc.d is Debian's
    # switch for that; one that is already there is left alone.
    policy=/usr/sbin/policy-rc.d
    if [[ ! -e $policy ]]; then
        "${as_root[@]}" sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
        trap '"${as_root[@]}" rm -f "$policy"' EXIT
    fi

    apt_options=(-y -q -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    "${as_root[@]}" apt-get -q -o DPkg::Lock::Timeout=300 update
    "${as_root[@]}" apt-get install "${apt_options[@]}" --no-install-recommends "${missing[@]}"
else
    log "Debian packages present: ${apt_packages[*]}"
fi

if $build_only; then
    command -v swift >/dev/null 2>&1 || log "warning: swift is not on PATH; building needs a Swift 6.2 or later toolchain"
    log "done (build only)"
    exit 0
fi

nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
nginx_build="$("$nginx_bin" -V 2>&1)" || die "nginx does not run: $nginx_bin"
for module in http_ssl_module http_v2_module; do
    [[ $nginx_build == *"--with-$module"* ]] || die "$nginx_bin is built without $module; the tests need TLS and HTTP/2"
done
[[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ]] || die "nginx's echo module is missing: install libnginx-mod-http-echo"

# MARK: - Python packages

command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH"

# Prints the requirements whose exact version is not installed in python3's environment.
missing_python="$(python3 - "$requirements" <<'PY'
import sys
from importlib import metadata

for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    try:
        if metadata.version(name) == version:
            continue
    except metadata.PackageNotFoundError:
        pass
    print(line)
PY
)"

if [[ -n $missing_python ]]; then
    log "installing $(echo $missing_python)"
    pip_options=(--quiet --no-input --disable-pip-version-check --root-user-action=ignore)
    # A Python that Debian manages refuses installs outside a virtual environment (PEP 668);
    # a build machine has no other use for that interpreter, so the refusal is overridden.
    if python3 -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
        pip_options+=(--break-system-packages)
    fi
    python3 -m pip --version >/dev/null 2>&1 || die "python3 has no pip: install python3-pip"
    python3 -m pip install "${pip_options[@]}" -r "$requirements"
else
    log "Python packages present: $(grep -v '^#' "$requirements" | tr '\n' ' ')"
fi

python3 -c 'import httpbin, gunicorn' 2>/dev/null || die "httpbin or gunicorn does not import after installing"

# MARK: - Toolchain

if ! command -v swift >/dev/null 2>&1; then
    log "warning: swift is not on PATH; building needs a Swift 6.2 or later toolchain"
fi

log "done"
