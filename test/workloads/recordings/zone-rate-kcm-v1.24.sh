#!/usr/bin/env bash
# Records the NoExecute tainting rate of kube-controller-manager v1.24: four nodes, two stop renewing their Leases.
set -u
K="${KUBELOOM_TOOLS:-.kubeloom-tools}/bin/kubectl --kubeconfig $HOME/realk8s/kubeconfig"
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
nowus() { date -u +%Y-%m-%dT%H:%M:%S.%6NZ; }
NODES="nodelife-z1 nodelife-z2 nodelife-z3 nodelife-z4"
for n in $NODES; do
  $K delete node $n --ignore-not-found >/dev/null; $K delete lease -n kube-node-lease $n --ignore-not-found >/dev/null
  echo "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"$n\"}}" | $K create -f - >/dev/null
  t=$(now)
  $K patch node $n --subresource=status --type=merge -p "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\",\"lastHeartbeatTime\":\"$t\",\"lastTransitionTime\":\"$t\"}]}}" >/dev/null
  echo "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"$n\",\"namespace\":\"kube-node-lease\"},\"spec\":{\"holderIdentity\":\"$n\",\"leaseDurationSeconds\":40,\"renewTime\":\"$(nowus)\"}}" | $K create -f - >/dev/null
done
renew() { $K patch lease -n kube-node-lease $1 --type=merge -p "{\"spec\":{\"renewTime\":\"$(nowus)\"}}" >/dev/null; }
echo "## stop renewing z3, z4 at $(nowus)"; S=$(date +%s)
while [ $(( $(date +%s) - S )) -lt 80 ]; do renew nodelife-z1; renew nodelife-z2; sleep 4; done
for n in $NODES; do $K get node $n -o jsonpath='{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].lastTransitionTime} {.spec.taints}{"\n"}'; done
for n in $NODES; do $K delete node $n >/dev/null; $K delete lease -n kube-node-lease $n >/dev/null; done
