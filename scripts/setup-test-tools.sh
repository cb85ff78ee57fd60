#!/usr/bin/env bash
# Installs what the browser tests of `sumito serve` drive: Debian's Chromium
# and ChromeDriver (/usr/bin/chromium, /usr/bin/chromedriver). Idempotent: a
# machine that has both is left as it is.
set -euo pipefail
if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    exit 0
fi
echo "installing Debian's chromium and chromium-driver for the browser tests" >&2
run_as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo > /dev/null; then
        sudo "$@"
    else
        echo "error: installing chromium needs root (or sudo); install the Debian packages chromium and chromium-driver" >&2
        exit 1
    fi
}
export DEBIAN_FRONTEND=noninteractive
# A machine whose package lists are stale or missing gets them first.
run_as_root apt-get update -q > /dev/null || true
run_as_root apt-get install -y -q --no-install-recommends chromium chromium-driver > /dev/null
test -x /usr/bin/chromium && test -x /usr/bin/chromedriver
