#!/usr/bin/env bash
# Installs Debian's etcd-server for the etcd storage tests (src/apiserver/storage/*.test.ts start their own
# etcd on free loopback ports through test/support/etcd.ts). Does nothing when an etcd binary is on PATH or
# at /usr/bin/etcd. Needs root (apt-get), as on the CI machine.
set -euo pipefail
if [ -x /usr/bin/etcd ] || command -v etcd >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-etcd: apt-get not found; install etcd (v3.4 or later) on PATH by hand (the etcd tests skip without it)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq etcd-server >/dev/null
# Debian's package starts a system etcd on 2379; the tests do not use it.
/usr/bin/etcd --version
