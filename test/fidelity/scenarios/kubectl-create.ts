/**
 * Every `kubectl create <generator>`: kubectl sends these objects as protobuf, so each scenario checks
 * that the server decodes the kind, stores what kubectl meant, and answers what kubectl prints.
 * Each creates the object, then reads it back as JSON. kubectl runs in fixtures/, where the files some
 * generators read live.
 */
import type { Scenario, Step } from '../scenario.ts';

/** `kubectl create …` then `kubectl get <what> -o json` (picking the interesting parts). */
function generator(id: string, title: string, create: string, get: string, pick: string[] = ['metadata.name', 'metadata.labels', 'metadata.annotations', 'spec', 'data', 'type', 'rules', 'roleRef', 'subjects', 'value', 'globalDefault', 'description', 'preemptionPolicy'], extra: Partial<Scenario> = {}): Scenario {
  const steps: Step[] = [{ kubectl: create }, { kubectl: `get ${get} -o json`, pick }];
  return { id: `kubectl-create/${id}`, title, steps, ...extra };
}

const cluster = (names: string[], kind: string): Step[] => names.map((n) => ({ kubectl: `delete ${kind} ${n} --ignore-not-found` }));

export const kubectlCreate: Scenario[] = [
  generator('deployment', 'kubectl create deployment web --image=nginx', 'create deployment web --image=nginx', 'deployment web'),
  generator('deployment-replicas-port', 'kubectl create deployment with --replicas and --port', 'create deployment api --image=nginx:1.25 --replicas=3 --port=8080', 'deployment api'),
  generator('deployment-multi-image', 'kubectl create deployment with two images', 'create deployment duo --image=nginx --image=busybox', 'deployment duo', ['spec.template.spec.containers']),
  generator('deployment-dry-run-server', 'kubectl create deployment --dry-run=server -o yaml', 'create deployment dry --image=nginx --dry-run=server -o yaml', 'deployment dry'),
  generator('job', 'kubectl create job with a command', 'create job once --image=busybox -- echo hello', 'job once', ['metadata.name', 'metadata.labels', 'spec.template.spec', 'spec.completions', 'spec.parallelism', 'spec.backoffLimit']),
  {
    id: 'kubectl-create/job-from-cronjob',
    title: 'kubectl create job --from=cronjob/tick',
    steps: [
      { kubectl: "create cronjob tick --image=busybox --schedule='*/5 * * * *' -- date" },
      { kubectl: 'create job manual --from=cronjob/tick' },
      { kubectl: 'get job manual -o json', pick: ['metadata.name', 'metadata.annotations', 'metadata.ownerReferences', 'spec.template.spec.containers'] },
    ],
  },
  generator('cronjob', 'kubectl create cronjob with a schedule and restart policy', "create cronjob tick --image=busybox --schedule='*/1 * * * *' --restart=OnFailure -- date", 'cronjob tick'),
  generator('service-clusterip', 'kubectl create service clusterip with two ports', 'create service clusterip web --tcp=80:8080 --tcp=443:8443', 'service web'),
  generator('service-clusterip-headless', 'kubectl create service clusterip --clusterip=None', 'create service clusterip headless --clusterip=None', 'service headless'),
  generator('service-nodeport', 'kubectl create service nodeport with --node-port', 'create service nodeport np --tcp=80:8080 --node-port=30123', 'service np'),
  generator('service-loadbalancer', 'kubectl create service loadbalancer', 'create service loadbalancer lb --tcp=80:8080', 'service lb'),
  generator('service-externalname', 'kubectl create service externalname', 'create service externalname ext --external-name=example.com', 'service ext'),
  generator('secret-generic', 'kubectl create secret generic from literals and type', 'create secret generic creds --from-literal=user=admin --from-literal=pass=s3cret --type=Opaque', 'secret creds'),
  generator('secret-docker-registry', 'kubectl create secret docker-registry', 'create secret docker-registry reg --docker-server=registry.example.com --docker-username=u --docker-password=p --docker-email=u@example.com', 'secret reg'),
  {
    id: 'kubectl-create/secret-tls',
    title: 'kubectl create secret tls from a certificate and key file',
    steps: [
      { kubectl: 'create secret tls tls --cert=tls.crt --key=tls.key' },
      { kubectl: 'get secret tls -o json', pick: ['type', 'data'] },
    ],
  },
  generator('configmap', 'kubectl create configmap from literals', 'create configmap settings --from-literal=mode=fast --from-literal=level=3', 'configmap settings'),
  generator('configmap-from-env-file', 'kubectl create configmap --from-env-file', 'create configmap env --from-env-file=app.env', 'configmap env'),
  {
    id: 'kubectl-create/namespace',
    title: 'kubectl create namespace',
    namespace: false,
    steps: [{ kubectl: 'create namespace fid-kc-ns-{{r}}' }, { kubectl: 'get namespace fid-kc-ns-{{r}} -o json', pick: ['metadata.name', 'metadata.labels', 'spec', 'status'] }],
    cleanup: [
      { req: 'DELETE /api/v1/namespaces/fid-kc-ns-{{r}}' },
      { req: 'PUT /api/v1/namespaces/fid-kc-ns-{{r}}/finalize', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid-kc-ns-{{r}}' }, spec: { finalizers: [] } } },
    ],
  },
  generator('serviceaccount', 'kubectl create serviceaccount', 'create serviceaccount robot', 'serviceaccount robot', ['metadata.name', 'secrets', 'automountServiceAccountToken']),
  generator('role', 'kubectl create role with verbs and resources', 'create role reader --verb=get,list --resource=pods,deployments.apps --resource-name=x', 'role reader'),
  {
    ...generator('clusterrole', 'kubectl create clusterrole with a non-resource URL', 'create clusterrole fid-kc-cr-{{r}} --verb=get --non-resource-url=/healthz', 'clusterrole fid-kc-cr-{{r}}'),
    namespace: false,
    cleanup: cluster(['fid-kc-cr-{{r}}'], 'clusterrole'),
  },
  {
    ...generator('clusterrole-aggregation', 'kubectl create clusterrole --aggregation-rule', 'create clusterrole fid-kc-agg-{{r}} --aggregation-rule=fid=agg', 'clusterrole fid-kc-agg-{{r}}', ['metadata.name', 'aggregationRule', 'rules']),
    namespace: false,
    cleanup: cluster(['fid-kc-agg-{{r}}'], 'clusterrole'),
  },
  generator('rolebinding', 'kubectl create rolebinding to a clusterrole for a user, group and service account', 'create rolebinding rb --clusterrole=view --user=alice --group=devs --serviceaccount={{ns}}:robot', 'rolebinding rb'),
  {
    ...generator('clusterrolebinding', 'kubectl create clusterrolebinding', 'create clusterrolebinding fid-kc-crb-{{r}} --clusterrole=view --user=alice', 'clusterrolebinding fid-kc-crb-{{r}}'),
    namespace: false,
    cleanup: cluster(['fid-kc-crb-{{r}}'], 'clusterrolebinding'),
  },
  generator('quota', 'kubectl create quota with hard limits and scopes', 'create quota q --hard=cpu=1,memory=1G,pods=2,services.nodeports=0 --scopes=BestEffort', 'resourcequota q'),
  {
    ...generator('priorityclass', 'kubectl create priorityclass', "create priorityclass fid-kc-pc-{{r}} --value=1000 --description='fidelity' --preemption-policy=Never", 'priorityclass fid-kc-pc-{{r}}'),
    namespace: false,
    cleanup: cluster(['fid-kc-pc-{{r}}'], 'priorityclass'),
  },
  generator('poddisruptionbudget', 'kubectl create poddisruptionbudget with min-available', 'create poddisruptionbudget pdb --selector=app=web --min-available=50%', 'poddisruptionbudget pdb'),
  generator('poddisruptionbudget-max', 'kubectl create pdb with max-unavailable', 'create pdb pdb2 --selector=app=web --max-unavailable=1', 'pdb pdb2'),
  generator('ingress', 'kubectl create ingress with a rule, TLS and a default backend', 'create ingress web --class=nginx --rule=example.com/api*=api:80,tls=cert --default-backend=web:8080 --annotation=a=b', 'ingress web'),
  {
    id: 'kubectl-create/token',
    title: 'kubectl create token for a service account (and for a missing one)',
    steps: [
      { kubectl: 'create serviceaccount robot' },
      { kubectl: 'create token robot --duration=1h' },
      { kubectl: 'create token ghost' },
      { kubectl: 'create token robot --audience=https://example.com -o json', pick: ['kind', 'apiVersion', 'spec', 'status'] },
    ],
  },
  {
    id: 'kubectl-create/errors',
    title: 'kubectl create: an object that exists, an invalid name, a missing --image',
    steps: [
      { kubectl: 'create configmap dup' },
      { kubectl: 'create configmap dup' },
      { kubectl: 'create configmap Bad_Name' },
      { kubectl: 'create deployment noimage' },
      { kubectl: 'create deployment Bad --image=nginx' },
    ],
  },
  {
    id: 'kubectl-create/run-pod',
    title: 'kubectl run: a pod with labels, env and a command',
    steps: [
      { kubectl: "run web --image=nginx:1.25 --labels=app=web,tier=front --env=A=1 --port=80 -- nginx -g 'daemon off;'" },
      { kubectl: 'get pod web -o json', pick: ['metadata.labels', 'spec.containers'] },
    ],
  },
  {
    id: 'kubectl-create/from-file',
    title: 'kubectl create -f with a list of objects, and -f of an existing object',
    steps: [
      {
        kubectl: 'create -f -',
        stdin: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } },
            { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'two' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
          ],
        }),
      },
      { kubectl: 'create -f -', stdin: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } }) },
      { kubectl: 'create -f -', stdin: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'three' }, data: { a: 1 } }) },
    ],
  },
];
