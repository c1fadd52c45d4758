#!/usr/bin/env bash
# Records what the real kube-controller-manager v1.24 does when a node's Lease stops being renewed.
set -u
K="${KUBELOOM_TOOLS:-.kubeloom-tools}/bin/kubectl --kubeconfig $HOME/realk8s/kubeconfig"
NS=nodelife-real
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
nowus() { date -u +%Y-%m-%dT%H:%M:%S.%6NZ; }
$K create ns $NS 2>/dev/null
for n in nodelife-a nodelife-b; do
  $K delete node $n --ignore-not-found >/dev/null
  $K delete lease -n kube-node-lease $n --ignore-not-found >/dev/null
  $K create -f - <<J
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$n","labels":{"kubernetes.io/hostname":"$n"}}}
J
done
status() { # node
  local t=$(now)
  $K patch node $1 --subresource=status --type=merge -p "{\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"},\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\",\"reason\":\"KubeletHasSufficientMemory\",\"message\":\"kubelet has sufficient memory available\",\"lastHeartbeatTime\":\"$t\",\"lastTransitionTime\":\"$t\"},{\"type\":\"DiskPressure\",\"status\":\"False\",\"reason\":\"KubeletHasNoDiskPressure\",\"message\":\"kubelet has no disk pressure\",\"lastHeartbeatTime\":\"$t\",\"lastTransitionTime\":\"$t\"},{\"type\":\"PIDPressure\",\"status\":\"False\",\"reason\":\"KubeletHasSufficientPID\",\"message\":\"kubelet has sufficient PID available\",\"lastHeartbeatTime\":\"$t\",\"lastTransitionTime\":\"$t\"},{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\",\"lastHeartbeatTime\":\"$t\",\"lastTransitionTime\":\"$t\"}]}}" >/dev/null
}
renew() { # node
  local t=$(nowus)
  if ! $K get lease -n kube-node-lease $1 >/dev/null 2>&1; then
    $K create -f - >/dev/null <<J
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"$1","namespace":"kube-node-lease"},"spec":{"holderIdentity":"$1","leaseDurationSeconds":40,"renewTime":"$t"}}
J
  else
    $K patch lease -n kube-node-lease $1 --type=merge -p "{\"spec\":{\"renewTime\":\"$t\"}}" >/dev/null
  fi
}
for n in nodelife-a nodelife-b; do status $n; renew $n; done
echo "## taints after registration"; $K get node nodelife-a nodelife-b -o jsonpath='{range .items[*]}{.metadata.name} {.spec.taints}{"\n"}{end}'
pod() { # name tolerations-json
  $K delete pod -n $NS $1 --ignore-not-found --grace-period=0 --force >/dev/null 2>&1
  $K create -f - >/dev/null <<J
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1","namespace":"$NS"},"spec":{"nodeName":"nodelife-b","containers":[{"name":"c","image":"x:1"}],"tolerations":$2}}
J
  local t=$(now)
  $K patch pod -n $NS $1 --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\",\"lastTransitionTime\":\"$t\"},{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"$t\"},{\"type\":\"ContainersReady\",\"status\":\"True\",\"lastTransitionTime\":\"$t\"},{\"type\":\"PodScheduled\",\"status\":\"True\",\"lastTransitionTime\":\"$t\"}]}}" >/dev/null
}
pod p-default '[]'
pod p-t0 '[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":0}]'
pod p-t20 '[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":20},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":60}]'
pod p-forever '[{"operator":"Exists"}]'
echo "## tolerations after admission"; $K get pod -n $NS -o jsonpath='{range .items[*]}{.metadata.name} {.spec.tolerations}{"\n"}{end}'
for i in 1 2 3 4; do sleep 5; renew nodelife-a; renew nodelife-b; done
STOP=$(date +%s); echo "## stopped renewing nodelife-b at $(nowus)"
snap() {
  local el=$(( $(date +%s) - STOP ))
  echo "--- t=+${el}s"
  $K get node nodelife-b -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}/{.lastTransitionTime} {end}{"\n"}taints={.spec.taints}{"\n"}'
  $K get pod -n $NS -o jsonpath='{range .items[*]}{.metadata.name} ready={.status.conditions[?(@.type=="Ready")].status} del={.metadata.deletionTimestamp}{"\n"}{end}'
}
while [ $(( $(date +%s) - STOP )) -lt 95 ]; do renew nodelife-a; snap; sleep 3; done
echo "## resuming nodelife-b at $(nowus)"; renew nodelife-b; status nodelife-b; RES=$(date +%s)
while [ $(( $(date +%s) - RES )) -lt 15 ]; do renew nodelife-a; renew nodelife-b; snap; sleep 3; done
echo "## full node"; $K get node nodelife-b -o json | python3 -c 'import json,sys; n=json.load(sys.stdin); print(json.dumps({"taints":n["spec"].get("taints"),"conditions":n["status"]["conditions"]},indent=1))'
echo "## pods"; $K get pod -n $NS -o json | python3 -c 'import json,sys; [print(p["metadata"]["name"], json.dumps(p["metadata"].get("deletionTimestamp")), json.dumps(p["metadata"].get("deletionGracePeriodSeconds")), json.dumps(p["status"].get("conditions"))) for p in json.load(sys.stdin)["items"]]'
echo "## events"; $K get events -A -o json | python3 -c 'import json,sys; [print(e["metadata"]["namespace"], e["involvedObject"]["kind"], e["involvedObject"]["name"], e["involvedObject"].get("uid"), e["type"], e["reason"], repr(e["message"]), e.get("source"), e.get("reportingComponent"), e["count"]) for e in json.load(sys.stdin)["items"] if "nodelife" in e["involvedObject"]["name"] or e["metadata"]["namespace"]=="nodelife-real"]'
