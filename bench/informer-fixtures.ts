/** A realistic Pod (about 3.5 KB of JSON, with managedFields) for the informer benchmarks. */
export function benchPod(i: number, namespace = 'default'): Record<string, unknown> {
  const name = `web-${String(i).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `0000${i}-aaaa-bbbb-cccc-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2024-01-01T00:00:00Z',
      labels: { app: 'web', tier: 'frontend', shard: String(i % 16), 'pod-template-hash': '5d8c7f9b4' },
      annotations: { 'kubernetes.io/psp': 'restricted', 'prometheus.io/scrape': 'true' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8c7f9b4', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2024-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} }, 'f:ownerReferences': { '.': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {} } } } },
        },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:05Z', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:phase': {}, 'f:podIP': {} } } },
      ],
    },
    spec: {
      nodeName: `node-${i % 100}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
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
      podIP: `10.0.${(i >> 8) & 255}.${i & 255}`,
      hostIP: '192.168.0.10',
      startTime: '2024-01-01T00:00:01Z',
      qosClass: 'Burstable',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: '2024-01-01T00:00:01Z' },
        { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:05Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2024-01-01T00:00:05Z' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
      containerStatuses: [
        { name: 'web', ready: true, restartCount: 0, image: 'registry.example.com/web:1.2.3', imageID: 'registry.example.com/web@sha256:abc', containerID: 'containerd://abc', started: true, state: { running: { startedAt: '2024-01-01T00:00:03Z' } } },
      ],
    },
  };
}
