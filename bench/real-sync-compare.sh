#!/usr/bin/env bash
# The real-server initial-sync comparison against client-go v1.24 in one command (see
# bench/real-sync-compare.ts): cgbench --protobuf / kubeloom protobuf / cgbench JSON / kubeloom JSON,
# interleaved for ROUNDS rounds, medians of wall time, CPU time and peak RSS, load before each run.
#
#   bench/real-sync-compare.sh NS COUNT ROUNDS
#
# NS must exist or is created and filled up to COUNT Pods (without nodeName, so a running
# kube-controller-manager's pod GC leaves them alone); all Pods of NS are synced. Env: KUBECONFIG
# (default ~/realk8s/kubeconfig), CGBENCH (default ~/realk8s/bin/cgbench), JSON=FILE to keep the runs.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 NS [COUNT] [ROUNDS]" >&2
  exit 2
fi
NS=$1
COUNT=${2:-10000}
ROUNDS=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PATH="$root/node_modules/.bin:$PATH"
kubeconfig=${KUBECONFIG:-$HOME/realk8s/kubeconfig}
cgbench=${CGBENCH:-$HOME/realk8s/bin/cgbench}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec node "$here/real-sync-compare.ts" --kubeconfig "$kubeconfig" --cgbench "$cgbench" --namespace "$NS" --pods "$COUNT" --rounds "$ROUNDS" ${JSON:+--json "$JSON"}
