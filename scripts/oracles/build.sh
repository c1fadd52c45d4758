#!/usr/bin/env bash
# Builds one oracle (scripts/oracles/NAME/main.go) inside the liteKube tree that
# /work/shared/realk8s/build.sh checks out (REALK8S_HOME/src, vendored Kubernetes v1.24), offline with Go 1.19
# (-mod=vendor, GOPROXY=off). Sourced by each oracle's run.sh after it sets `name`, `needs` (a vendored file
# that must exist) and optionally `tags`; leaves the binary's path in `bin` and cleans up on exit.
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
src="${REALK8S_HOME:-$HOME/realk8s}/src"
go="${GO:-/usr/lib/go-1.19/bin/go}"
[ -f "$src/vendor/$needs" ] || { echo "no vendored $needs under $src (run realk8s build.sh)" >&2; exit 1; }
[ -x "$go" ] || go="$(command -v go)"

# Built in a directory of its own inside the liteKube module, removed afterwards.
cmd="$src/cmd/kubeloom-oracle-$name"
bin="$(mktemp -d)/$name"
trap 'rm -rf "$cmd" "$(dirname "$bin")"' EXIT
mkdir -p "$cmd"
cp "$here/main.go" "$cmd/main.go"
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local "$go" build -mod=vendor ${tags:+-tags "$tags"} -o "$bin" "./cmd/kubeloom-oracle-$name")
