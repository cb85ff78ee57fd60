#!/usr/bin/env bash
# Installs what the end-to-end tests drive as a person would: Debian's
# Chromium and ChromeDriver for the browser tests (/usr/bin/chromium,
# /usr/bin/chromedriver) and tmux for the terminal tests. Idempotent: a
# machine that has them all is left as it is.
set -euo pipefail
if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]] && command -v tmux > /dev/null; then
    exit 0
fi
echo "installing Debian's chromium, chromium-driver and tmux for the end-to-end tests" >&2
run_as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo > /dev/null; then
        sudo "$@"
    else
        echo "error: installing the test tools needs root (or sudo); install the Debian packages chromium, chromium-driver and tmux" >&2
        exit 1
    fi
}
export DEBIAN_FRONTEND=noninteractive
# A machine whose package lists are stale or missing gets them first.
run_as_root apt-get update -q > /dev/null || true
run_as_root apt-get install -y -q --no-install-recommends chromium chromium-driver tmux > /dev/null
test -x /usr/bin/chromium && test -x /usr/bin/chromedriver && command -v tmux > /dev/null
