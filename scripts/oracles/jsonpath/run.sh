#!/usr/bin/env bash
# Recomputes the cells of src/util/jsonpath/testdata/printer-column-cells.json with client-go v1.24's
# util/jsonpath (the liteKube tree that /work/shared/realk8s/build.sh checks out, REALK8S_HOME/src; Go 1.19,
# offline, -mod=vendor). `git diff` afterwards shows whether the committed cells still equal the oracle's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
src="${REALK8S_HOME:-$HOME/realk8s}/src"
go="${GO:-/usr/lib/go-1.19/bin/go}"
[ -f "$src/vendor/k8s.io/client-go/util/jsonpath/jsonpath.go" ] || { echo "no vendored client-go under $src (run realk8s build.sh)" >&2; exit 1; }
[ -x "$go" ] || go="$(command -v go)"

cmd="$src/cmd/kubeloom-oracle-jsonpath"
bin="$(mktemp -d)/jsonpath"
trap 'rm -rf "$cmd" "$(dirname "$bin")"' EXIT
mkdir -p "$cmd"
cp "$here/main.go" "$cmd/main.go"
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local "$go" build -mod=vendor -o "$bin" ./cmd/kubeloom-oracle-jsonpath)

cells="$repo/src/util/jsonpath/testdata/printer-column-cells.json"
"$bin" "$cells"
echo "regenerated; git status:"
git -C "$repo" status --short -- "$cells"
