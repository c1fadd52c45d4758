#!/usr/bin/env bash
set -u
K="${KUBELOOM_TOOLS:-.kubeloom-tools}/bin/kubectl --kubeconfig $HOME/realk8s/kubeconfig"
NS=nodelife-quota
$K delete ns $NS --ignore-not-found --wait=false >/dev/null 2>&1
sleep 1
$K create ns $NS
$K apply -f - <<J
{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"nodelife-high"},"value":1000}
J
mk() { $K create -n $NS -f - <<J
$1
J
}
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}'
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}'
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},"spec":{"activeDeadlineSeconds":60,"containers":[{"name":"c","image":"nginx"}]}}'
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"d"},"spec":{"priorityClassName":"nodelife-high","containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"200m"}}}]}}'
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e"},"spec":{"containers":[{"name":"c","image":"nginx"}],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname","namespaces":["other"],"labelSelector":{"matchLabels":{"x":"y"}}}]}}}}'
mk '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"f"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}'
q() { mk "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"$1\"},\"spec\":$2}"; }
q q-be '{"scopes":["BestEffort"],"hard":{"pods":"10"}}'
q q-nbe '{"scopes":["NotBestEffort"],"hard":{"pods":"10","requests.cpu":"1"}}'
q q-term '{"scopes":["Terminating"],"hard":{"pods":"10"}}'
q q-nterm '{"scopes":["NotTerminating"],"hard":{"pods":"10"}}'
q q-prio '{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["nodelife-high"]}]},"hard":{"pods":"10","requests.cpu":"1"}}'
q q-prio-notin '{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"NotIn","values":["nodelife-high"]}]},"hard":{"pods":"10"}}'
q q-xns '{"scopeSelector":{"matchExpressions":[{"scopeName":"CrossNamespacePodAffinity","operator":"Exists"}]},"hard":{"pods":"10"}}'
q q-prio-dne '{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"DoesNotExist"}]},"hard":{"pods":"10"}}'
sleep 15
$K get resourcequota -n $NS -o jsonpath='{range .items[*]}{.metadata.name} {.status.used}{"\n"}{end}'
