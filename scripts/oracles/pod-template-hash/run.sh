#!/usr/bin/env bash
# Regenerates src/controllers/hash/testdata/pod-template-hashes.json (the hashes of its templates) and
# src/controllers/hash/pod-template-spec-go-types.ts with kube-controller-manager v1.24's own code, and
# checks that the hashes a real kube-controller-manager wrote (real-kcm-hashes.json) are ComputeHash's.
#
# Needs the liteKube tree that /work/shared/realk8s/build.sh checks out (REALK8S_HOME/src, vendored
# Kubernetes v1.24) and Go 1.19; builds offline (-mod=vendor, GOPROXY=off). `git diff` afterwards shows
# whether the committed data still equals the oracle's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
src="${REALK8S_HOME:-$HOME/realk8s}/src"
go="${GO:-/usr/lib/go-1.19/bin/go}"
[ -f "$src/vendor/k8s.io/kubernetes/pkg/controller/controller_utils.go" ] || { echo "no vendored Kubernetes under $src (run realk8s build.sh)" >&2; exit 1; }
[ -x "$go" ] || go="$(command -v go)"

# Built inside the liteKube module, in a directory of its own that is removed afterwards.
cmd="$src/cmd/kubeloom-oracle-pod-template-hash"
bin="$(mktemp -d)/pod-template-hash"
trap 'rm -rf "$cmd" "$(dirname "$bin")"' EXIT
mkdir -p "$cmd"
cp "$here/main.go" "$cmd/main.go"
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local "$go" build -mod=vendor -tags providerless -o "$bin" ./cmd/kubeloom-oracle-pod-template-hash)

data="$repo/src/controllers/hash"
"$bin" corpus "$data/testdata/pod-template-hashes.json"
"$bin" go-types "$data/pod-template-spec-go-types.ts"
"$bin" check "$data/testdata/real-kcm-hashes.json"
echo "regenerated; git status:"
git -C "$repo" status --short -- "$data"
