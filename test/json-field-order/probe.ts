/**
 * The requests whose answers pin the key order of the embedded server's JSON: the same requests run
 * against a real kube-apiserver v1.24 (record.ts writes its answers to golden.json) and against the
 * embedded server (json-field-order.test.ts compares). Values that differ from server to server (uids,
 * resourceVersions, timestamps, cluster IPs) are replaced by placeholders; everything else, key order
 * and spacing included, is compared byte for byte.
 *
 * Kinds no controller touches are used (a Pod with a scheduler that does not exist), so a real cluster
 * with kube-controller-manager and kube-scheduler running answers the same as one without.
 */
import { request, type Dispatcher } from 'undici';

/** Where the probe sends its requests. */
export interface ProbeTarget {
  readonly url: string;
  readonly dispatcher?: Dispatcher;
  readonly token?: string;
}

/** The namespace the probe works in (created and deleted by the probe). */
export const probeNamespace = 'lane-server-json-order';

const volatile = /"(uid|resourceVersion|creationTimestamp|time|clusterIP)":"[^"]*"/g;
const volatileLists = /"(clusterIPs)":\["[^"]*"\]/g;

/** The body with server-specific values replaced, so that two servers' answers compare. */
export function normalise(body: string): string {
  return body.replace(volatile, '"$1":"…"').replace(volatileLists, '"$1":["…"]').replace(/too old resource version: \d+ \(\d+\)/, 'too old resource version: … (…)');
}

async function call(t: ProbeTarget, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (t.token !== undefined) headers.authorization = `Bearer ${t.token}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await request(`${t.url}${path}`, { method: method as Dispatcher.HttpMethod, headers, body: body === undefined ? undefined : JSON.stringify(body), ...(t.dispatcher === undefined ? {} : { dispatcher: t.dispatcher }) });
  return { status: res.statusCode, text: await res.body.text() };
}

// The first line of a watch (one event), the stream then closed.
async function firstWatchEvent(t: ProbeTarget, path: string): Promise<string> {
  const ac = new AbortController();
  const headers: Record<string, string> = {};
  if (t.token !== undefined) headers.authorization = `Bearer ${t.token}`;
  const res = await request(`${t.url}${path}`, { headers, signal: ac.signal, ...(t.dispatcher === undefined ? {} : { dispatcher: t.dispatcher }) });
  let text = '';
  try {
    for await (const chunk of res.body) {
      text += String(chunk);
      const nl = text.indexOf('\n');
      if (nl >= 0) return text.slice(0, nl);
    }
  } finally {
    ac.abort();
  }
  return text;
}

const ns = probeNamespace;
const fieldManager = 'json-order-probe';

/** Runs the probe: answer name → normalised body (each with its HTTP status first). */
export async function runProbe(t: ProbeTarget): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const keep = (name: string, r: { status: number; text: string }): void => {
    out[name] = `${r.status} ${normalise(r.text.trimEnd())}`;
  };
  await call(t, 'DELETE', `/api/v1/namespaces/${ns}`);
  // A real cluster may still be finalizing the namespace of an earlier recording.
  for (let i = 0; i < 300; i++) {
    const r = await call(t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    if (r.status === 201) break;
    if (r.status !== 409) throw new Error(`creating namespace ${ns}: ${r.status} ${r.text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const q = `?fieldManager=${fieldManager}`;
  keep('create ConfigMap', await call(t, 'POST', `/api/v1/namespaces/${ns}/configmaps${q}`, {
    data: { zeta: '1', alpha: '2' },
    metadata: { annotations: { 'b.example.com/x': '1', 'a.example.com/x': '2' }, labels: { zz: '1', aa: '2' }, name: 'cm' },
    kind: 'ConfigMap',
    apiVersion: 'v1',
  }));
  keep('get ConfigMap', await call(t, 'GET', `/api/v1/namespaces/${ns}/configmaps/cm`));
  keep('list ConfigMaps', await call(t, 'GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=aa`));
  keep('watch ConfigMaps', { status: 200, text: await firstWatchEvent(t, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=0&labelSelector=aa`) });
  keep('merge-patch ConfigMap', await call(t, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/cm${q}`, { data: { beta: '3' }, metadata: { labels: { mm: '3' } } }, 'application/merge-patch+json'));
  keep('create Secret', await call(t, 'POST', `/api/v1/namespaces/${ns}/secrets${q}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { b: '1', a: '2' }, type: 'Opaque' }));
  keep('create Service', await call(t, 'POST', `/api/v1/namespaces/${ns}/services${q}`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { selector: { app: 'x' }, ports: [{ targetPort: 8080, port: 80 }] } }));
  keep('create Role', await call(t, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles${q}`, { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', rules: [{ verbs: ['get', 'list'], resources: ['pods'], apiGroups: [''] }], metadata: { name: 'r' } }));
  keep('create Pod', await call(t, 'POST', `/api/v1/namespaces/${ns}/pods${q}`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'x' } },
    spec: {
      schedulerName: 'json-order-no-such-scheduler',
      tolerations: [{ operator: 'Exists', key: 'k' }],
      containers: [{ resources: { requests: { memory: '64Mi', cpu: '100m' } }, ports: [{ containerPort: 80 }], image: 'registry.k8s.io/pause:3.7', name: 'c', envFrom: [{ configMapRef: { name: 'cm' } }], env: [{ value: '1', name: 'A' }], readinessProbe: { periodSeconds: 5, httpGet: { port: 80, path: '/' } } }],
      volumes: [{ configMap: { name: 'cm' }, name: 'v' }],
    },
  }));
  keep('get Pod', await call(t, 'GET', `/api/v1/namespaces/${ns}/pods/p`));
  keep('get Deployment scale (NotFound)', await call(t, 'GET', `/apis/apps/v1/namespaces/${ns}/deployments/nope/scale`));
  keep('create ConfigMap again (AlreadyExists)', await call(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }));
  keep('create invalid ConfigMap (Invalid)', await call(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }));
  keep('watch too old (Expired)', { status: 200, text: await firstWatchEvent(t, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`) });
  await call(t, 'DELETE', `/api/v1/namespaces/${ns}`);
  return out;
}
