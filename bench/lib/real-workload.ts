/**
 * The workload of the real-cluster benchmark: Pods created through the API like a Deployment's
 * (labels, annotations, a ReplicaSet owner, two containers with probes, env, resources and mounts),
 * the shape ../shared/realk8s/mkpods.py creates, so that figures from either tool compare. The
 * server drops .status on create and adds defaults and a managedFields entry: a stored Pod is
 * ~5.4 KB of JSON, about half of it managedFields.
 */
import { createHash } from 'node:crypto';
import type { Pod } from '../../src/api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/errors.ts';
import type { Clientset } from '../../src/kubernetes/index.ts';

/** The label every generated Pod carries (selects them for deletion). */
export const generatedLabel = 'bench.kubeloom.dev/generated';

const hex = (s: string, n: number): string => createHash('sha256').update(s).digest('hex').slice(0, n);

function uuidFrom(s: string): string {
  const h = hex(s, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The `i`-th generated Pod of `namespace`, named bench-pod-NNNNN. A `standalone` Pod has no
 * ReplicaSet owner reference and names a scheduler that does not exist, so that a kube-controller-manager
 * and kube-scheduler running against the same server leave it alone (the garbage collector deletes
 * Pods whose owner does not exist; a scheduled Pod may be evicted from a NotReady node).
 */
export function realPod(namespace: string, i: number, standalone = false): Pod {
  const app = `web-${i % 40}`;
  const hash = hex(app, 10);
  const rs = `${app}-${hash}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `bench-pod-${String(i).padStart(5, '0')}`,
      namespace,
      labels: {
        'app.kubernetes.io/name': app,
        'app.kubernetes.io/instance': `${app}-prod`,
        'pod-template-hash': hash,
        tier: i % 3 === 0 ? 'backend' : 'frontend',
        [generatedLabel]: 'true',
      },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'kubectl.kubernetes.io/restartedAt': '2024-05-01T10:00:00Z' },
      ...(standalone ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: uuidFrom(rs), controller: true, blockOwnerDeletion: true }] }),
    },
    spec: {
      ...(standalone ? { schedulerName: 'kubeloom-bench-unscheduled' } : {}),
      serviceAccountName: 'default',
      securityContext: { runAsNonRoot: true, runAsUser: 1000 },
      containers: [
        {
          name: 'app',
          image: `registry.example.com/team/${app}:v1.${i % 7}.${i % 13}`,
          args: ['--port=8080', '--metrics-port=9090'],
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'LOG_FORMAT', value: 'json' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/app', readOnly: true },
            { name: 'cache', mountPath: '/var/cache/app' },
          ],
        },
        {
          name: 'log-shipper',
          image: 'registry.example.com/infra/log-shipper:2.3.1',
          resources: { requests: { cpu: '10m', memory: '32Mi' } },
          volumeMounts: [{ name: 'cache', mountPath: '/var/cache/app', readOnly: true }],
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: `${app}-config` } },
        { name: 'cache', emptyDir: {} },
      ],
    },
  };
}

/** Counts the Pods of `namespace` with one small LIST (limit 1 plus remainingItemCount). */
export async function countPods(cs: Clientset, namespace: string): Promise<number> {
  const page = await cs.coreV1().pods(namespace).list({ limit: 1 });
  return page.items.length + (page.metadata?.remainingItemCount ?? 0);
}

/**
 * Makes sure `namespace` exists and holds generated Pods 0..count-1 (creating the missing ones,
 * `concurrency` at a time). Returns how many were created.
 */
export async function ensurePods(cs: Clientset, namespace: string, count: number, concurrency: number, progress: (created: number) => void, standalone = false): Promise<number> {
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: namespace } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  if ((await countPods(cs, namespace)) >= count) return 0;
  const pods = cs.coreV1().pods(namespace);
  let next = 0;
  let created = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      try {
        await pods.create(realPod(namespace, i, standalone));
        if (++created % 1000 === 0) progress(created);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return created;
}

/** Deletes the generated Pods and then the namespace (which a cluster's namespace controller finishes). */
export async function deleteWorkload(cs: Clientset, namespace: string): Promise<void> {
  await cs.coreV1().pods(namespace).deleteCollection({ gracePeriodSeconds: 0 }, { labelSelector: `${generatedLabel}=true` });
  try {
    await cs.coreV1().namespaces().delete(namespace);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
