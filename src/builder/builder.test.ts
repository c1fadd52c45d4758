import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Secret } from '../api/core/v1.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { startApiServer } from '../apiserver/index.ts';
import { ignoreNotFound } from '../client/client.ts';
import { kinds } from '../client/kinds.ts';
import { setControllerReference } from '../client/owner.ts';
import { newManager, type Manager } from '../manager/manager.ts';
import { labelSelector } from '../predicate/predicate.ts';
import { eventually } from '../testing/eventually.ts';
import { controllerManagedBy } from './builder.ts';

const cms = kinds.coreV1.configMaps;
const secrets = kinds.coreV1.secrets;
const quiet = { debug() {}, info() {}, error() {} };

async function run(t: import('node:test').TestContext, setup: (mgr: Manager) => void): Promise<Manager> {
  const server = await startApiServer();
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet });
  setup(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
    await server.stop();
  });
  return mgr;
}

test('builder: for() reconciles the object, owns() brings owned objects back to their controller, withEventFilter filters', async (t) => {
  const reconciled: string[] = [];
  const mgr = await run(t, (mgr) =>
    controllerManagedBy(mgr)
      .for(cms)
      .owns(secrets)
      .withEventFilter(labelSelector('app=demo'))
      .complete(async ({ namespace, name }, { client }) => {
        reconciled.push(name);
        let cm: ConfigMap;
        try {
          cm = await client.get(cms, { namespace, name });
        } catch (err) {
          ignoreNotFound(err);
          return;
        }
        const secret: Secret = { metadata: { namespace, name: `${name}-copy`, labels: { app: 'demo' } }, stringData: { ...cm.data } };
        setControllerReference(cms, cm, secret);
        try {
          await client.create(secrets, secret);
        } catch (err) {
          if (!String(err).includes('already exists')) throw err;
        }
      }),
  );
  const client = mgr.getClient();
  await client.create(cms, { metadata: { namespace: 'default', name: 'a', labels: { app: 'demo' } }, data: { k: 'v' } });
  await client.create(cms, { metadata: { namespace: 'default', name: 'ignored' } });
  const copy = await eventually(() => client.get(secrets, { namespace: 'default', name: 'a-copy' }), { timeoutMs: 5_000 });
  assert.equal(copy.metadata?.ownerReferences?.[0]?.kind, 'ConfigMap');
  // Deleting the owned Secret reconciles its owner, which makes it again.
  await client.delete(secrets, copy);
  await eventually(async () => (await client.get(secrets, { namespace: 'default', name: 'a-copy' }, { uncached: true })).metadata?.uid !== copy.metadata?.uid, { timeoutMs: 5_000 });
  assert.equal(reconciled.includes('ignored'), false);
  assert.ok(reconciled.filter((n) => n === 'a').length >= 2);
});

test('builder: watches(kind, mapFn) maps other objects to requests; metadata-only watches see metadata', async (t) => {
  const reconciled: string[] = [];
  const seen: unknown[] = [];
  const mgr = await run(t, (mgr) =>
    controllerManagedBy(mgr)
      .for(cms)
      .watches(
        secrets,
        (s) => {
          seen.push((s as { data?: unknown }).data);
          return [{ namespace: s.metadata?.namespace ?? '', name: s.metadata?.labels?.['for'] ?? '' }];
        },
        { metadataOnly: true },
      )
      .complete(({ name }) => void reconciled.push(name)),
  );
  await mgr.getClient().create(secrets, { metadata: { namespace: 'default', name: 's', labels: { for: 'target' } }, stringData: { big: 'x' } });
  await eventually(() => reconciled.includes('target'), { timeoutMs: 5_000 });
  assert.deepEqual(seen, [undefined]);
  assert.ok(mgr.getCache().informerDescriptions().includes('v1, Resource=secrets (metadata)'));
});

test('builder: completeWithFinalizer adds the finalizer, applies while the object lives, cleans up then releases it on delete', async (t) => {
  const events: string[] = [];
  const mgr = await run(t, (mgr) =>
    controllerManagedBy(mgr)
      .for(cms)
      .completeWithFinalizer('example.com/cleanup', {
        apply: (cm) => void events.push(`apply ${cm.metadata?.name} ${cm.metadata?.finalizers?.join(',')}`),
        cleanup: (cm) => void events.push(`cleanup ${cm.metadata?.name}`),
      }),
  );
  const client = mgr.getClient();
  await client.create(cms, { metadata: { namespace: 'default', name: 'f' } });
  await eventually(() => events.includes('apply f example.com/cleanup'), { timeoutMs: 5_000 });
  await client.delete(cms, { namespace: 'default', name: 'f' });
  await eventually(async () => {
    try {
      await client.get(cms, { namespace: 'default', name: 'f' }, { uncached: true });
      return false;
    } catch (err) {
      return isNotFound(err);
    }
  }, { timeoutMs: 5_000 });
  assert.deepEqual(events.filter((e) => e.startsWith('cleanup')), ['cleanup f']);
});

test('a reconcile error logged by a built controller names the controller, its group and kind, the object and the reconcile ID', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const errors: Array<Record<string, unknown>> = [];
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error: (m, f) => (m === 'Reconciler error' ? errors.push(f ?? {}) : undefined) } });
  controllerManagedBy(mgr)
    .for(kinds.appsV1.deployments)
    .complete(() => {
      throw new Error('boom');
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await mgr.getClient().create(kinds.appsV1.deployments, { metadata: { namespace: 'default', name: 'web' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  while (errors.length === 0) await new Promise<void>((r) => setImmediate(r));
  const { reconcileID, stacktrace, causes, ...rest } = errors[0]!;
  assert.deepEqual(rest, { controller: 'deployment', controllerGroup: 'apps', controllerKind: 'Deployment', object: 'default/web', namespace: 'default', name: 'web', err: 'boom' });
  // Why it ran (docs/observability.md): the event that enqueued it and the handler that mapped it.
  assert.ok(Array.isArray(causes) && causes.length === 1);
  assert.match(String(causes[0]), /Deployment default\/web rv=\d+ by EnqueueRequestForObject$/);
  assert.equal(typeof reconcileID, 'string');
  assert.match(String(stacktrace), /^Error: boom\n/);
});
