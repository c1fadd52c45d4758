// Persistent storage (dataDir), snapshots and forks of the embedded API server, in process; the crash
// test with the real CLI is in apiserver-storage-crash.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { brief, call, configMap, create, watch, type Json } from './apiserver-helpers.ts';

const cms = '/api/v1/namespaces/default/configmaps';
const widgets = '/apis/storage.kubeloom.dev/v1/namespaces/default/widgets';

const widgetCrd: Json = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.storage.kubeloom.dev' },
  spec: {
    group: 'storage.kubeloom.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } } } }],
  },
};

async function names(s: ApiServer, path: string): Promise<string[]> {
  const r = await call(s, 'GET', path);
  assert.equal(r.status, 200, r.text);
  return (r.body.items as Json[]).map((o) => o.metadata.name as string);
}

test('a fresh server starts from the bootstrap snapshot with exactly the objects the write path writes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-boot-'));
  const clock = new FakeClock(Date.UTC(2025, 4, 6, 7, 8, 9));
  try {
    for (const rbac of [false, true]) {
      // With a data directory the bootstrap objects go through the whole write path (and to disk).
      const slow = await startApiServer({ clock, rbac, dataDir: join(dir, String(rbac)) });
      const fast = await startApiServer({ clock, rbac });
      try {
        const image = (s: ApiServer): string => {
          const port = new URL(s.url).port;
          const out: string[] = [];
          for (const [store, items] of s.snapshot().storage.objects) {
            for (const [key, o] of items) {
              assert.equal(o.json, JSON.stringify(o.obj), `${store} ${key}`);
              out.push(`${store} ${key} ${o.json.replace(/"uid":"[^"]+"/g, '"uid":""').replace(/"-----BEGIN CERTIFICATE[^"]*"/g, 'CA').replaceAll(port, 'PORT')}`);
            }
          }
          return out.sort().join('\n');
        };
        assert.equal(fast.revision(), slow.revision());
        assert.equal(image(fast), image(slow));
        assert.deepEqual(
          fast.snapshot().storage.history.map((c) => `${c.type} ${c.store} ${c.key} ${c.rv}`),
          slow.snapshot().storage.history.map((c) => `${c.type} ${c.store} ${c.key} ${c.rv}`),
        );
        // Each server has its own uids, and its clock's time.
        const ns = (s: ApiServer): Json => s.snapshot().storage.objects.get('namespaces')!.get('kube-system')!.obj.metadata;
        assert.notEqual(ns(fast).uid, ns(await startApiServer().then(async (o) => (await o.stop(), o))).uid);
        assert.equal(ns(fast).creationTimestamp, '2025-05-06T07:08:09Z');
      } finally {
        await fast.stop();
        await slow.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('fork: an isolated copy of a server — writes and watches independent, resourceVersions continuing, CRDs served', async () => {
  const parent = await startApiServer();
  try {
    await create(parent, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
    for (let i = 0; i < 20; i++) await create(parent, cms, configMap(`cm-${i}`, { i: String(i) }));
    await create(parent, widgets, { apiVersion: 'storage.kubeloom.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} });
    const at = parent.revision();
    const fork = await parent.fork();
    try {
      assert.notEqual(fork.url, parent.url);
      assert.ok(fork.revision() >= at);
      assert.equal((await names(fork, cms)).length, 20);
      // The custom resource is served, with its schema (the default applied when it was written).
      const w = await call(fork, 'GET', `${widgets}/w`);
      assert.equal(w.status, 200, w.text);
      assert.equal(w.body.spec.size, 1);
      const forkWatch = await watch(fork, `${cms}?watch=1&resourceVersion=${fork.revision()}`);
      const parentWatch = await watch(parent, `${cms}?watch=1&resourceVersion=${parent.revision()}`);
      const inFork = await create(fork, cms, configMap('only-in-fork'));
      const inParent = await create(parent, cms, configMap('only-in-parent'));
      // Both continue from the revision they shared.
      assert.ok(Number(inFork.metadata.resourceVersion) > at);
      assert.ok(Number(inParent.metadata.resourceVersion) > at);
      assert.equal((await call(parent, 'GET', `${cms}/only-in-fork`)).status, 404);
      assert.equal((await call(fork, 'GET', `${cms}/only-in-parent`)).status, 404);
      assert.equal((await call(fork, 'DELETE', `${cms}/cm-0`)).status, 200);
      assert.equal((await call(parent, 'GET', `${cms}/cm-0`)).status, 200);
      assert.equal(brief(await forkWatch.next()), `ADDED only-in-fork ${inFork.metadata.resourceVersion}`);
      assert.match(brief(await forkWatch.next()), /^DELETED cm-0 /);
      assert.equal(brief(await parentWatch.next()), `ADDED only-in-parent ${inParent.metadata.resourceVersion}`);
      await forkWatch.close();
      await parentWatch.close();
      // A snapshot is immutable: a server started from it later sees the state at the time it was taken.
      const snapshot = fork.snapshot();
      await create(fork, cms, configMap('after-snapshot'));
      const again = await startApiServer({ from: snapshot });
      try {
        const list = await names(again, cms);
        assert.ok(list.includes('only-in-fork') && !list.includes('after-snapshot') && !list.includes('cm-0'));
      } finally {
        await again.stop();
      }
    } finally {
      await fork.stop();
    }
  } finally {
    await parent.stop();
  }
});

test('dataDir: a server started again on the directory has the same objects, CRDs, revisions and Service IPs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-data-'));
  try {
    const first = await startApiServer({ dataDir: dir, watchCache: false });
    assert.equal(first.storage.kind, 'sqlite');
    let rv: number;
    let ip: string;
    try {
      await create(first, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
      await create(first, widgets, { apiVersion: 'storage.kubeloom.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } });
      ip = (await create(first, '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } })).spec.clusterIP;
      await create(first, cms, configMap('a'));
      rv = first.revision();
      await create(first, cms, configMap('b'));
      // The same directory cannot be opened twice.
      await assert.rejects(startApiServer({ dataDir: dir }), /in use/);
    } finally {
      await first.stop();
    }
    const second = await startApiServer({ dataDir: dir, watchCache: false });
    try {
      assert.ok(second.revision() > rv);
      assert.deepEqual(await names(second, cms), ['a', 'b']);
      assert.equal((await call(second, 'GET', `${widgets}/w`)).body.spec.size, 3);
      // Without a watch cache, a watch from before the restart is served from the retained log.
      const w = await watch(second, `${cms}?watch=1&resourceVersion=${rv}`);
      assert.match(brief(await w.next()), /^ADDED b /);
      await w.close();
      // A fork of a server on SQLite lives in memory: its writes do not reach the directory.
      const fork = await second.fork();
      try {
        assert.equal(fork.storage.kind, 'memory');
        await create(fork, cms, configMap('fork-only'));
      } finally {
        await fork.stop();
      }
      const next = await create(second, '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc2' }, spec: { ports: [{ port: 80 }] } });
      assert.notEqual(next.spec.clusterIP, ip);
      assert.ok(Number(next.metadata.resourceVersion) > second.revision() - 1);
    } finally {
      await second.stop();
    }
    const third = await startApiServer({ dataDir: dir });
    try {
      assert.deepEqual(await names(third, cms), ['a', 'b']);
    } finally {
      await third.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('dataDir keeps the ServiceAccount signing key: tokens from before a restart verify, and a fork shares the key', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-sa-key-'));
  const other = await mkdtemp(join(tmpdir(), 'kubeloom-sa-key-other-'));
  const tokenFor = async (s: ApiServer, sa: string): Promise<string> => {
    const r = await call(s, 'POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
    assert.equal(r.status, 201, r.text);
    return r.body.status.token as string;
  };
  const review = async (s: ApiServer, token: string): Promise<string> => {
    const r = await call(s, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    assert.equal(r.status, 201, r.text);
    return r.body.status.authenticated === true ? (r.body.status.user.username as string) : `rejected: ${r.body.status.error as string}`;
  };
  try {
    const first = await startApiServer({ dataDir: dir });
    let token: string;
    try {
      await create(first, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } });
      token = await tokenFor(first, 'bot');
      assert.equal(await review(first, token), 'system:serviceaccount:default:bot');
    } finally {
      await first.stop();
    }
    assert.equal((await stat(join(dir, 'sa.key'))).mode & 0o777, 0o600);
    const second = await startApiServer({ dataDir: dir });
    try {
      assert.equal(await review(second, token), 'system:serviceaccount:default:bot');
      // A fork verifies the parent's tokens, and the parent verifies the fork's.
      const fork = await second.fork();
      try {
        assert.equal(await review(fork, token), 'system:serviceaccount:default:bot');
        assert.equal(await review(second, await tokenFor(fork, 'bot')), 'system:serviceaccount:default:bot');
      } finally {
        await fork.stop();
      }
    } finally {
      await second.stop();
    }
    // Another data directory has another key: the same objects would not make the token valid there.
    const stranger = await startApiServer({ dataDir: other });
    try {
      await create(stranger, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } });
      assert.equal(await review(stranger, token), 'rejected: invalid bearer token, invalid signature');
    } finally {
      await stranger.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  }
});

test('a fork of an in-memory server shares its ServiceAccount signing key', async () => {
  const parent = await startApiServer();
  try {
    await create(parent, '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } });
    const fork = await parent.fork();
    try {
      const r = await call(fork, 'POST', '/api/v1/namespaces/default/serviceaccounts/bot/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
      const reviewed = await call(parent, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: r.body.status.token } } });
      assert.equal(reviewed.body.status.user?.username, 'system:serviceaccount:default:bot', reviewed.text);
    } finally {
      await fork.stop();
    }
  } finally {
    await parent.stop();
  }
});

test('fork of a TLS + RBAC server keeps its certificate and admin token: the parent\'s kubeconfig works against the fork', async () => {
  const parent = await startApiServer({ rbac: true });
  try {
    const fork = await parent.fork();
    try {
      assert.equal(fork.caCertPem, parent.caCertPem);
      const token = /token: (\S+)/.exec(parent.kubeconfig)![1]!;
      assert.equal(/token: (\S+)/.exec(fork.kubeconfig)![1], token);
      const status = (headers: Record<string, string>): Promise<number | undefined> =>
        new Promise((resolve, reject) => {
          const req = httpsGet(`${fork.url}/api/v1/namespaces/default/configmaps`, { ca: parent.caCertPem, headers }, (res) => {
            res.resume();
            resolve(res.statusCode);
          });
          req.on('error', reject);
        });
      assert.equal(await status({ authorization: `Bearer ${token}` }), 200);
      assert.equal(await status({}), 403);
    } finally {
      await fork.stop();
    }
  } finally {
    await parent.stop();
  }
});
