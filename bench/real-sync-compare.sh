#!/usr/bin/env bash
# The real-server initial-sync comparison against client-go v1.24 in one command (see
# bench/real-sync-compare.ts): cgbench --protobuf / kubeloom protobuf / cgbench JSON / kubeloom JSON,
# interleaved for ROUNDS rounds, medians of wall time, CPU time and peak RSS, load before each run.
#
#   bench/real-sync-compare.sh NS COUNT ROUNDS
#
# NS is created if needed and filled up to COUNT Pods (bench/lib/real-workload.ts); all Pods of NS are
# synced, and the count is checked before every run. Env: KUBECONFIG (default ~/realk8s/kubeconfig),
# CGBENCH (default ~/realk8s/bin/cgbench), JSON=FILE to keep the runs, STANDALONE=1 to create the
# missing Pods without their ReplicaSet owner and with an unknown schedulerName: needed when the real
# kube-controller-manager/kube-scheduler run against the server (the garbage collector deletes Pods
# whose owner does not exist, and scheduled Pods may be evicted from NotReady nodes), VARIANTS=A,B,…
# to run other clients than the default four (e.g. add kubeloom-protobuf-nogzip and kubeloom-nogzip,
# which do not ask for gzip).
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
exec node "$here/real-sync-compare.ts" --kubeconfig "$kubeconfig" --cgbench "$cgbench" --namespace "$NS" --pods "$COUNT" --rounds "$ROUNDS" ${JSON:+--json "$JSON"} ${STANDALONE:+--standalone-pods} ${VARIANTS:+--variants "$VARIANTS"}
