#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser test (test/dashboard-browser.test.ts), which
# drives it with playwright-core; no browser is ever downloaded by playwright itself. Does nothing when
# /usr/bin/chromium exists. Needs root (apt-get), as on the CI machine.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: apt-get not found; install chromium at /usr/bin/chromium by hand (the browser test skips without it)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
