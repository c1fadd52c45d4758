/**
 * The benchmark workload: realistic Pods of about 3 KB of JSON, shaped like those a ReplicaSet's
 * controller and a kubelet leave behind (labels, annotations, an owner reference, two managedFields
 * entries, one container with probes, env, resources and mounts, and a full status). Every figure
 * in BENCHMARKS.md is measured over these objects, so both libraries see the same bytes.
 */

/** A Pod as plain JSON data; the bench never relies on the generated types' optionality. */
export type BenchPod = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string; namespace: string } };

/** The `i`-th Pod of a namespace. Deterministic: the same `i` always yields the same bytes. */
export function benchPod(i: number, namespace: string): BenchPod {
  const hash = (0x5d8c7f9b + (i >> 6)).toString(16);
  const name = `web-${hash}-${String(i).padStart(6, '0')}`;
  const uid = `${(0x10000000 + i).toString(16)}-8c1e-4d2a-9f3b-${String(i).padStart(12, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid,
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'web', tier: 'frontend', shard: String(i % 16), 'pod-template-hash': hash },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${hash}`, uid: `a1b2c3d4-0000-4000-8000-${hash.padStart(12, '0')}`, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:shard': {}, 'f:tier': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"a1b2c3d4"}`]: {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} } }, 'f:dnsPolicy': {}, 'f:restartPolicy': {} },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-01-01T00:00:05Z',
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:startTime': {} } },
        },
      ],
    },
    spec: {
      nodeName: `node-${String(i % 100).padStart(3, '0')}`,
      serviceAccountName: 'web',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/web:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      hostIP: `192.168.0.${i % 100}`,
      startTime: '2026-01-01T00:00:01Z',
      qosClass: 'Burstable',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' },
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/web:1.2.3',
          imageID: 'registry.example.com/web@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
          containerID: `containerd://${(i * 2654435761).toString(16).padStart(12, '0')}`,
          started: true,
          state: { running: { startedAt: '2026-01-01T00:00:03Z' } },
        },
      ],
    },
  };
}

/**
 * The `seq`-th modification of a Pod, as a kubelet status update looks on the wire: a new restart
 * count, a new Ready transition time and a bumped annotation. Shares unchanged parts with `base`.
 */
export function modifiedPod(base: BenchPod, seq: number): BenchPod {
  const status = base.status as Record<string, unknown> & { containerStatuses: Record<string, unknown>[]; conditions: Record<string, unknown>[] };
  const second = String(seq % 60).padStart(2, '0');
  return {
    ...base,
    metadata: { ...base.metadata, annotations: { ...(base.metadata.annotations as Record<string, string>), 'bench.kubeloom.io/seq': String(seq) } },
    status: {
      ...status,
      conditions: status.conditions.map((c) => (c.type === 'Ready' ? { ...c, lastTransitionTime: `2026-01-01T00:01:${second}Z` } : c)),
      containerStatuses: [{ ...status.containerStatuses[0], restartCount: seq }],
    },
  };
}
