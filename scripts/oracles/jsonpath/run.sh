#!/usr/bin/env bash
# Recomputes the cells of src/util/jsonpath/testdata/printer-column-cells.json with client-go v1.24's
# util/jsonpath (the liteKube tree that /work/shared/realk8s/build.sh checks out, REALK8S_HOME/src; Go 1.19,
# offline, -mod=vendor). `git diff` afterwards shows whether the committed cells still equal the oracle's.
set -euo pipefail
name=jsonpath
needs=k8s.io/client-go/util/jsonpath/jsonpath.go
source "$(dirname "${BASH_SOURCE[0]}")/../build.sh"

cells="$repo/src/util/jsonpath/testdata/printer-column-cells.json"
"$bin" "$cells"
echo "regenerated; git status:"
git -C "$repo" status --short -- "$cells"
