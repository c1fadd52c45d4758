/**
 * Kubernetes protobuf end to end, on both backends (the embedded server in `npm test`, a real
 * kube-apiserver in `npm run test:real`): what a client reading protobuf gets equals what a JSON client
 * gets — a written object, a LIST, a watch event, a PartialObjectMetadataList, an error — and a typed
 * informer over protobuf syncs the same cache. See docs/protobuf.md.
 */
import assert from 'node:assert/strict';
import type { ConfigMap, Pod } from '../src/api/core/v1.ts';
import { isNotFound } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { ContentTypeProtobuf, ProtobufAcceptContentTypes, RestClient, buildCreate, buildGet, buildList, buildWatch, decodeProtobuf } from '../src/rest/index.ts';
import { SharedIndexInformer, newListWatchFromClient, waitForCacheSync } from '../src/tools/cache/index.ts';
import { e2eTest } from './support/backend.ts';

type Obj = Record<string, unknown>;

e2eTest('a protobuf client reads what a JSON client reads: objects with every kind of field, lists, watch events, metadata lists, errors', async (env) => {
  const json = new RestClient(env.restConfig());
  const pb = new RestClient(env.restConfig({ acceptContentTypes: ProtobufAcceptContentTypes, contentType: ContentTypeProtobuf }));
  try {
    const ns = env.namespace;
    const svc = { group: '', version: 'v1', namespace: ns, resource: 'services' };
    const deploy = { group: 'apps', version: 'v1', namespace: ns, resource: 'deployments' };
    // Written as protobuf: int-or-string, quantities, pointers, maps, nested structs, int64.
    await pb.json(buildCreate(svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http', name: 'http' }, { port: 81, targetPort: 8081, name: 'alt' }] } }));
    await pb.json(
      buildCreate(deploy, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', annotations: { note: 'ünïcode ✓' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              terminationGracePeriodSeconds: 0,
              containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1500m', memory: '1Gi' } }, readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 3 } }],
            },
          },
        },
      }),
    );
    for (const [loc, name] of [
      [svc, 'web'],
      [deploy, 'web'],
    ] as const) {
      assert.deepEqual(await pb.json(buildGet({ ...loc, name })), await json.json(buildGet({ ...loc, name })), loc.resource);
      const a: Obj[] = [];
      const b: Obj[] = [];
      const envA = await json.list<Obj>(buildList(loc), (items) => void a.push(...items));
      const envB = await pb.list<Obj>(buildList(loc), (items) => void b.push(...items));
      assert.deepEqual(b, a);
      assert.deepEqual(envB, envA);
    }
    const meta = (type: string): string => `${type};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`;
    const metaJson = await json.json(buildList(svc, {}, { accept: meta('application/json') }));
    const metaPb = await json.do(buildList(svc, {}, { accept: `${meta(ContentTypeProtobuf)},${meta('application/json')}` }));
    assert.equal(metaPb.headers['content-type'], ContentTypeProtobuf);
    assert.deepEqual(decodeProtobuf(metaPb.body), metaJson);
    await assert.rejects(pb.json(buildGet({ ...svc, name: 'missing' })), (err: unknown) => isNotFound(err));

    const cms = { group: '', version: 'v1', namespace: ns, resource: 'configmaps' };
    const listed = await json.list<Obj>(buildList(cms), () => undefined);
    const watch = await pb.watch<Obj>(buildWatch(cms, { resourceVersion: String(listed.metadata?.resourceVersion) }));
    await json.json(buildCreate(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' }, data: { k: 'v' }, binaryData: { b: 'AAEC' } }));
    for await (const event of watch) {
      assert.equal(event.type, 'ADDED');
      assert.deepEqual(event.object, await json.json(buildGet({ ...cms, name: 'w' })));
      break;
    }
  } finally {
    await Promise.all([json.close(), pb.close()]);
  }
});

e2eTest('an informer over protobuf syncs the same objects as one over JSON', async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace);
  for (let i = 0; i < 30; i++) await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, labels: { i: String(i) } }, data: { i: String(i) } });
  const synced = async (acceptContentTypes: string | undefined): Promise<unknown[]> => {
    const cs = newClientset(env.restConfig(acceptContentTypes === undefined ? {} : { acceptContentTypes }));
    const stop = new AbortController();
    const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps(env.namespace)));
    const running = informer.run({ signal: stop.signal });
    try {
      assert.ok(await waitForCacheSync({ signal: stop.signal }, () => informer.hasSynced()));
      return informer.getStore().list().sort((x, y) => (x.metadata!.name! < y.metadata!.name! ? -1 : 1));
    } finally {
      stop.abort();
      await running;
      await cs.close();
    }
  };
  const fromJson = await synced(undefined);
  assert.equal(fromJson.length, 30);
  assert.deepEqual(await synced(ProtobufAcceptContentTypes), fromJson);
});

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

e2eTest('an informer over protobuf shares the identical parts of its Pods, frozen, and syncs what a JSON informer syncs; with a transform nothing is shared', async (env) => {
  const pods = env.cs.coreV1().pods(env.namespace);
  for (let i = 0; i < 12; i++) {
    await pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${i}`, labels: { app: 'web' } },
      spec: {
        // No scheduler binds them (a real one running against the server would set spec.nodeName).
        schedulerName: 'kubeloom-test-no-scheduler',
        containers: [{ name: 'web', image: 'nginx:1.27', env: [{ name: 'MODE', value: 'prod' }], readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 } }],
      },
    });
  }
  const synced = async (acceptContentTypes: string | undefined, transform?: (p: Pod) => Pod): Promise<Pod[]> => {
    const cs = newClientset(env.restConfig(acceptContentTypes === undefined ? {} : { acceptContentTypes }));
    const stop = new AbortController();
    // A LIST, as against servers without watch-list (before 1.27): the sharing applies to LIST responses.
    const informer = new SharedIndexInformer<Pod>(newListWatchFromClient(cs.coreV1().pods(env.namespace)), { reflector: { useWatchList: false } });
    if (transform !== undefined) informer.setTransform(transform);
    const running = informer.run({ signal: stop.signal });
    try {
      assert.ok(await waitForCacheSync({ signal: stop.signal }, () => informer.hasSynced()));
      return informer.getStore().list().sort((x, y) => (x.metadata!.name! < y.metadata!.name! ? -1 : 1));
    } finally {
      stop.abort();
      await running;
      await cs.close();
    }
  };
  const fromJson = await synced(undefined);
  const fromPb = await synced(ProtobufAcceptContentTypes);
  assert.equal(fromPb.length, 12);
  assert.deepEqual(fromPb, fromJson);
  assert.ok(fromPb.every(isDeepFrozen));
  // One probe and one env entry for every Pod (their containers too, unless a server adds a volume
  // mount of its own to each); each Pod and its metadata its own.
  const [a, b] = fromPb as [Pod, Pod];
  assert.equal(a.spec!.containers[0]!.readinessProbe, b.spec!.containers[0]!.readinessProbe);
  assert.equal(a.spec!.containers[0]!.env![0], b.spec!.containers[0]!.env![0]);
  assert.notEqual(a.metadata, b.metadata);
  // A transform may change anything inside an object before it is frozen: nothing is shared then.
  const transformed = await synced(ProtobufAcceptContentTypes, (p) => {
    p.spec!.containers[0]!.image = 'changed';
    return p;
  });
  assert.deepEqual(
    transformed.map((p) => p.spec!.containers[0]!.image),
    fromPb.map(() => 'changed'),
  );
  assert.notEqual(transformed[0]!.spec!.containers[0]!.readinessProbe, transformed[1]!.spec!.containers[0]!.readinessProbe);
  assert.ok(transformed.every(isDeepFrozen));
});
