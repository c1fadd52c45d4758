#!/usr/bin/env bash
# Regenerates src/controllers/hash/testdata/pod-template-hashes.json (the hashes of its templates) and
# src/controllers/hash/pod-template-spec-go-types.ts with kube-controller-manager v1.24's own code, and
# checks that the hashes a real kube-controller-manager wrote (real-kcm-hashes.json) are ComputeHash's.
#
# Needs the liteKube tree that /work/shared/realk8s/build.sh checks out (REALK8S_HOME/src, vendored
# Kubernetes v1.24) and Go 1.19; builds offline (-mod=vendor, GOPROXY=off). `git diff` afterwards shows
# whether the committed data still equals the oracle's.
set -euo pipefail
name=pod-template-hash
needs=k8s.io/kubernetes/pkg/controller/controller_utils.go
tags=providerless
source "$(dirname "${BASH_SOURCE[0]}")/../build.sh"

data="$repo/src/controllers/hash"
"$bin" corpus "$data/testdata/pod-template-hashes.json"
"$bin" go-types "$data/pod-template-spec-go-types.ts"
"$bin" check "$data/testdata/real-kcm-hashes.json"
echo "regenerated; git status:"
git -C "$repo" status --short -- "$data"
