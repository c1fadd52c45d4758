// The etcd backend: kube-apiserver's key layout and encoding (no etcd needed), and, on a test etcd (skipped
// without an etcd binary unless KUBELOOM_REQUIRE_ETCD is set), what a second store or server on the same
// etcd sees: the loaded state, other writers' changes in etcd's order, compare-and-swap conflicts,
// compact.go's compact_rev_key protocol, the stored bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceVersionConflictError, RevisionCompactedError, Storage, type Change } from '../storage.ts';
import { WatchCache } from '../watch-cache.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import { EtcdClient, EtcdError } from './etcd-client.ts';
import { etcdTlsFromFlags } from '../../cli/apiserver-command.ts';
import { compactRevKey, EtcdBackend } from './etcd-backend.ts';
import { decodeStored, encodeStored, etcdKey, parseEtcdKey } from './etcd-layout.ts';
import { startApiServer } from '../server.ts';
import { etcdSkipReason, startTestEtcd, type TestEtcd } from '../../../test/support/etcd.ts';

type Obj = Record<string, unknown>;

test('etcd keys follow kube-apiserver: the resource without its group, the special prefixes, <group>/<resource> for CRDs, APIServices and custom resources', () => {
  const table: Array<[string, string, string]> = [
    ['configmaps', 'ns/a', '/registry/configmaps/ns/a'],
    ['namespaces', 'ns', '/registry/namespaces/ns'],
    ['services', 'default/kubernetes', '/registry/services/specs/default/kubernetes'],
    ['endpoints', 'default/kubernetes', '/registry/services/endpoints/default/kubernetes'],
    ['nodes', 'n1', '/registry/minions/n1'],
    ['replicationcontrollers', 'ns/rc', '/registry/controllers/ns/rc'],
    ['ingresses.networking.k8s.io', 'ns/i', '/registry/ingress/ns/i'],
    ['deployments.apps', 'ns/d', '/registry/deployments/ns/d'],
    ['clusterroles.rbac.authorization.k8s.io', 'admin', '/registry/clusterroles/admin'],
    ['leases.coordination.k8s.io', 'kube-node-lease/n1', '/registry/leases/kube-node-lease/n1'],
    ['events', 'ns/e', '/registry/events/ns/e'],
    ['customresourcedefinitions.apiextensions.k8s.io', 'widgets.example.com', '/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com'],
    ['apiservices.apiregistration.k8s.io', 'v1.apps', '/registry/apiregistration.k8s.io/apiservices/v1.apps'],
    ['widgets.example.com', 'ns/w', '/registry/example.com/widgets/ns/w'],
  ];
  for (const [store, key, expected] of table) {
    assert.equal(etcdKey('/registry', store, key), expected, store);
    assert.deepEqual(parseEtcdKey('/registry', expected), { store, key }, expected);
  }
  // What the embedded server does not serve is skipped.
  assert.equal(parseEtcdKey('/registry', '/registry/ranges/serviceips'), undefined);
  assert.equal(parseEtcdKey('/registry', '/other/configmaps/ns/a'), undefined);
});

test('built-in kinds are stored as the k8s\\0 protobuf envelope, custom resources and CRDs as JSON, never with a resourceVersion', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', uid: 'u1' }, data: { k: 'v' } };
  const bytes = Buffer.from(encodeStored('configmaps', cm));
  assert.equal(bytes.subarray(0, 4).toString('latin1'), 'k8s\0');
  assert.ok(!bytes.includes('resourceVersion'));
  const back = decodeStored(bytes);
  assert.deepEqual(back, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: null }, data: { k: 'v' } });
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', resourceVersion: '9' }, spec: { size: 1 } };
  const json = Buffer.from(encodeStored('widgets.example.com', widget)).toString('utf8');
  assert.equal(json, '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":1}}\n');
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: {} };
  assert.equal(Buffer.from(encodeStored('customresourcedefinitions.apiextensions.k8s.io', crd)).toString('utf8')[0], '{');
});

const skip = etcdSkipReason();
describe('on a test etcd', { timeout: 120_000, ...(skip === undefined ? {} : { skip }) }, () => {
  let etcd: TestEtcd;
  let prefixes = 0;
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    await etcd.stop();
  });
  const cm = (name: string, v: string): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { v } });
  const until = async (cond: () => boolean): Promise<void> => {
    while (!cond()) await new Promise<void>((resolve) => setImmediate(resolve));
  };

  test('a second store on the same etcd loads the current state, then sees the first one\'s writes in etcd\'s order; stale writes are 409/404', async () => {
    const prefix = `/two${++prefixes}`;
    const a = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const x1 = a.write('configmaps', 'ns/x', 'ADDED', cm('x', '1'));
      const b = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
      try {
        assert.equal(b.revision, x1.rv);
        assert.equal(b.get('configmaps', 'ns/x')?.rv, x1.rv);
        assert.deepEqual(b.get('configmaps', 'ns/x')?.obj.data, { v: '1' });
        const seen: string[] = [];
        b.subscribe('configmaps', (c: Change) => seen.push(`${c.type} ${c.key}@${c.rv - x1.rv}${c.prev === undefined ? '' : ` prev@${c.prev.rv - x1.rv}`}`));
        a.write('configmaps', 'ns/y', 'ADDED', cm('y', '1'));
        a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '2'));
        a.write('configmaps', 'ns/y', 'DELETED', cm('y', '1'));
        await until(() => seen.length === 3);
        assert.deepEqual(seen, ['ADDED ns/y@1', 'MODIFIED ns/x@2 prev@0', 'DELETED ns/y@3 prev@1']);
        assert.equal(b.revision, a.revision);
        // B writes on top of A's latest: fine. A's view is then stale for its next write only if it has not
        // applied B's change yet; a failed compare refreshes it.
        const x3 = b.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '3'));
        assert.equal(x3.rv, x1.rv + 4);
        const stale = (): unknown => a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', 'stale'));
        if (a.get('configmaps', 'ns/x')!.rv === x3.rv) {
          // A already applied B's write through its watch: a fresh write succeeds.
          assert.equal(a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '4')).rv, x3.rv + 1);
        } else {
          assert.throws(stale, (err: unknown) => err instanceof StatusError && err.status.code === 409 && err.status.reason === 'Conflict');
          assert.equal(a.get('configmaps', 'ns/x')?.rv, x3.rv);
        }
        // A create of a key another writer holds: AlreadyExists; a delete of a key another writer removed: NotFound.
        assert.throws(() => b.write('configmaps', 'ns/x', 'ADDED', cm('x', 'again')), (err: unknown) => err instanceof StatusError && err.status.reason === 'AlreadyExists');
        const z = a.write('configmaps', 'ns/z', 'ADDED', cm('z', '1'));
        await until(() => b.get('configmaps', 'ns/z') !== undefined);
        a.write('configmaps', 'ns/z', 'DELETED', z.obj);
        if (b.get('configmaps', 'ns/z') !== undefined) assert.throws(() => b.write('configmaps', 'ns/z', 'DELETED', z.obj), (err: unknown) => err instanceof StatusError && err.status.code === 404);
      } finally {
        b.backend?.close();
      }
    } finally {
      a.backend?.close();
    }
  });

  test('a write pinned to the revision it was computed from fails when another store wrote first, in etcd or already in the read model', async () => {
    const prefix = `/pinned${++prefixes}`;
    const a = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    const b = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const x1 = a.write('configmaps', 'ns/x', 'ADDED', cm('x', '1'));
      await until(() => b.get('configmaps', 'ns/x') !== undefined);
      const x2 = b.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '2'), x1.rv);
      // Whether A's watch delivered B's write yet or not, A's write computed from x1 is refused, and A then holds x2.
      assert.throws(() => a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', 'stale'), x1.rv), (err: unknown) => err instanceof ResourceVersionConflictError && err.status.code === 409);
      assert.equal(a.get('configmaps', 'ns/x')?.rv, x2.rv);
      // The compare failing in etcd itself: B writes behind A's back, A writes with the revision its read model
      // holds before its watch can deliver B's change (nothing yields to the event loop in between).
      const x3 = b.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '3'), x2.rv);
      assert.equal(a.get('configmaps', 'ns/x')?.rv, x2.rv);
      assert.throws(() => a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', 'stale'), x2.rv), (err: unknown) => err instanceof ResourceVersionConflictError && err.actual === x3.rv);
      assert.equal(a.get('configmaps', 'ns/x')?.rv, x3.rv);
      assert.equal(a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '4'), x3.rv).rv, x3.rv + 1);
    } finally {
      a.backend?.close();
      b.backend?.close();
    }
  });

  test('writeAsync keeps several writes in flight: the read model applies every change in etcd\'s order, each write resolves with its own object, same-key races conflict', async () => {
    const prefix = `/pipelined${++prefixes}`;
    const a = new Storage(1000, 0, EtcdBackend.open([etcd.url], { prefix }));
    const b = new Storage(1000, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const seen: Array<{ rv: number; key: string; remote: boolean }> = [];
      a.subscribe('configmaps', (c: Change) => seen.push({ rv: c.rv, key: c.key, remote: c.remote === true }));
      const start = a.revision;
      // 24 creates of A in flight together, with B's writes landing among them.
      const writes = Array.from({ length: 24 }, (_, i) => a.writeAsync('configmaps', `ns/a${i}`, 'ADDED', cm(`a${i}`, String(i))));
      for (let i = 0; i < 4; i++) b.write('configmaps', `ns/b${i}`, 'ADDED', cm(`b${i}`, String(i)));
      const stored = await Promise.all(writes);
      await until(() => a.revision >= start + 28);
      // One change per revision, in order, none missed.
      assert.deepEqual(seen.map((c) => c.rv), Array.from({ length: 28 }, (_, i) => start + 1 + i));
      for (const [i, s] of stored.entries()) {
        assert.equal(s.key, `ns/a${i}`);
        assert.deepEqual(s.obj.data, { v: String(i) });
        assert.equal((s.obj.metadata as Obj).resourceVersion, String(s.rv));
        // A's own writes are applied as written (not decoded from etcd), B's as remote.
        assert.equal(seen.find((c) => c.rv === s.rv)?.remote, false);
      }
      assert.deepEqual(seen.filter((c) => c.remote).map((c) => c.key), ['ns/b0', 'ns/b1', 'ns/b2', 'ns/b3']);
      // Two updates of one key computed from the same state: one wins, the other is a conflict to retry.
      const base = a.get('configmaps', 'ns/a0')!;
      const race = await Promise.allSettled([a.writeAsync('configmaps', 'ns/a0', 'MODIFIED', cm('a0', 'x'), base.rv), a.writeAsync('configmaps', 'ns/a0', 'MODIFIED', cm('a0', 'y'), base.rv)]);
      assert.deepEqual(race.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const lost = race.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.ok(lost.reason instanceof ResourceVersionConflictError, String(lost.reason));
      const won = race.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ rv: number }>;
      assert.equal(a.get('configmaps', 'ns/a0')?.rv, won.value.rv);
      // A create of a key that exists is AlreadyExists, as with write.
      await assert.rejects(a.writeAsync('configmaps', 'ns/b0', 'ADDED', cm('b0', 'again')), (err: unknown) => err instanceof StatusError && err.status.reason === 'AlreadyExists');
    } finally {
      a.backend?.close();
      b.backend?.close();
    }
  });

  test('a read model whose watch fell behind a compaction relists: its content becomes etcd\'s, its watches end, a watch from before is 410, listeners get the difference', async () => {
    const prefix = `/relist${++prefixes}`;
    const client = new EtcdClient([etcd.url]);
    const backend = EtcdBackend.open([etcd.url], { prefix });
    const a = new Storage(100, 0, backend);
    a.watchCache = new WatchCache({}, () => 0);
    a.watchCache.begin(a.revision);
    const b = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const x1 = a.write('configmaps', 'ns/x', 'ADDED', cm('x', '1'));
      a.write('configmaps', 'ns/y', 'ADDED', cm('y', '1'));
      a.write('secrets', 'ns/s', 'ADDED', cm('s', '1'));
      await until(() => b.revision === a.revision);
      const relists: number[] = [];
      a.onRelist(() => relists.push(a.revision));
      const seen: string[] = [];
      a.subscribeAll((c: Change) => seen.push(`${c.type} ${c.store} ${c.key} ${(c.object.obj.data as { v: string }).v}`));
      // A's watch stops; B changes everything and etcd is compacted behind A's back.
      backend.suspendWatch();
      b.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '2'));
      b.write('configmaps', 'ns/y', 'DELETED', cm('y', '1'));
      const z = b.write('configmaps', 'ns/z', 'ADDED', cm('z', '1'));
      await client.compact(z.rv);
      backend.resumeWatch();
      await until(() => relists.length > 0);
      assert.deepEqual(relists, [z.rv]);
      assert.equal(a.revision, z.rv);
      assert.deepEqual(
        a.listAt('configmaps', a.revision).map((o) => `${o.key}@${o.rv}=${(o.obj.data as { v: string }).v}`),
        [`ns/x@${z.rv - 2}=2`, `ns/z@${z.rv}=1`],
      );
      assert.equal(a.get('secrets', 'ns/s')?.obj.data !== undefined, true);
      assert.deepEqual(seen, ['DELETED configmaps ns/y 1', 'MODIFIED configmaps ns/x 2', 'ADDED configmaps ns/z 1']);
      // The history starts at the list: reads and watches from before it are 410.
      assert.equal(a.compactedRevision, z.rv);
      assert.throws(() => a.changesSince('configmaps', x1.rv), RevisionCompactedError);
      assert.equal(a.watchCache.tooOld('configmaps', x1.rv), z.rv);
      // Writes and the watch go on from there.
      const x3 = a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '3'));
      assert.equal(x3.rv, z.rv + 1);
      b.write('configmaps', 'ns/w', 'ADDED', cm('w', '1'));
      await until(() => a.get('configmaps', 'ns/w') !== undefined);
      assert.deepEqual(seen.slice(3), ['MODIFIED configmaps ns/x 3', 'ADDED configmaps ns/w 1']);
    } finally {
      a.backend?.close();
      b.backend?.close();
    }
  });

  test('values are what kube-apiserver stores (protobuf, no resourceVersion); compaction follows compact_rev_key, once per round between servers', async () => {
    const prefix = `/layout${++prefixes}`;
    const client = new EtcdClient([etcd.url]);
    const a = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    const b = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const stored = a.write('configmaps', 'ns/x', 'ADDED', cm('x', '1'));
      const kv = (await client.range(`${prefix}/configmaps/ns/x`)).kvs[0]!;
      assert.equal(kv.modRevision, stored.rv);
      assert.equal(kv.value.subarray(0, 4).toString('latin1'), 'k8s\0');
      assert.ok(!kv.value.includes('resourceVersion'));
      const before = (await client.range(compactRevKey)).kvs[0]?.version ?? 0;
      a.compact(stored.rv);
      assert.equal((await client.range(compactRevKey)).kvs[0]!.version, before + 1);
      assert.equal(a.compactedRevision, stored.rv);
      // B's view of compact_rev_key is stale: its first try loses the compare, learns the version, then compacts.
      await until(() => b.revision >= stored.rv);
      b.compact(stored.rv);
      assert.equal((await client.range(compactRevKey)).kvs[0]!.version, before + 2);
      await assert.rejects(client.range(`${prefix}/configmaps/ns/x`, { revision: stored.rv - 1 }), /compacted/);
    } finally {
      a.backend?.close();
      b.backend?.close();
    }
  });

  test('a broken etcd watch is resumed from the next revision: nothing is missed, writes go on', async () => {
    const prefix = `/resume${++prefixes}`;
    const a = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
    try {
      const seen: string[] = [];
      a.subscribe('configmaps', (c: Change) => seen.push(`${c.type} ${c.key}`));
      a.write('configmaps', 'ns/x', 'ADDED', cm('x', '1'));
      // etcd goes away and comes back: A's watch breaks; another writer writes before A's watch is back.
      await etcd.restart();
      const b = new Storage(100, 0, EtcdBackend.open([etcd.url], { prefix }));
      try {
        b.write('configmaps', 'ns/y', 'ADDED', cm('y', '1'));
        b.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '2'));
        await until(() => seen.length === 3);
        assert.deepEqual(seen, ['ADDED ns/x', 'ADDED ns/y', 'MODIFIED ns/x']);
        assert.equal(a.write('configmaps', 'ns/x', 'MODIFIED', cm('x', '3')).rv, b.revision + 1);
      } finally {
        b.backend?.close();
      }
    } finally {
      a.backend?.close();
    }
  });

  test('two API servers on one etcd serve one cluster: a write on A reaches B\'s watchers, in order; B reads and updates it', async () => {
    const a = await startApiServer({ etcdServers: [etcd.url], etcdPrefix: `/servers${++prefixes}` });
    const b = await startApiServer({ etcdServers: [etcd.url], etcdPrefix: `/servers${prefixes}` });
    try {
      assert.equal(a.storage.kind, 'etcd');
      const watch = await fetch(`${b.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${b.revision()}`);
      const post = async (name: string): Promise<Obj> => {
        const r = await fetch(`${a.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { v: name } }) });
        assert.equal(r.status, 201);
        return (await r.json()) as Obj;
      };
      const first = await post('one');
      const second = await post('two');
      const lines: Array<{ type: string; object: Obj }> = [];
      const reader = watch.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (lines.length < 2) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const parts = text.split('\n');
        text = parts.pop()!;
        for (const p of parts) if (p !== '') lines.push(JSON.parse(p) as { type: string; object: Obj });
      }
      await reader.cancel();
      const rv = (o: Obj): string => (o.metadata as { resourceVersion: string }).resourceVersion;
      assert.deepEqual(
        lines.map((l) => `${l.type} ${(l.object.metadata as { name: string }).name}@${rv(l.object)}`),
        [`ADDED one@${rv(first)}`, `ADDED two@${rv(second)}`],
      );
      const got = (await (await fetch(`${b.url}/api/v1/namespaces/default/configmaps/one`)).json()) as Obj;
      assert.equal(rv(got), rv(first));
      const put = await fetch(`${b.url}/api/v1/namespaces/default/configmaps/one`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...got, data: { v: 'from b' } }) });
      assert.equal(put.status, 200);
      // A stale resourceVersion is a Conflict on either server.
      const stale = await fetch(`${a.url}/api/v1/namespaces/default/configmaps/one`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...got, data: { v: 'stale' } }) });
      assert.equal(stale.status, 409);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe('on a test etcd with TLS and client certificates', { timeout: 120_000, ...(skip === undefined ? {} : { skip }) }, () => {
  test('a server on https:// etcd with the CA and a client certificate (--etcd-cafile/--etcd-certfile/--etcd-keyfile) serves it; without them it cannot reach it', async () => {
    const etcd = await startTestEtcd({ tls: true });
    try {
      assert.match(etcd.url, /^https:/);
      const server = await startApiServer({ etcdServers: [etcd.url], etcdTls: etcdTlsFromFlags(etcd.files!.ca, etcd.files!.cert, etcd.files!.key)! });
      try {
        const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'over-tls' }, data: { a: 'b' } }) });
        assert.equal(r.status, 201);
        const kv = (await new EtcdClient([etcd.url], etcd.tls).range('/registry/configmaps/default/over-tls')).kvs[0]!;
        assert.equal(String(kv.modRevision), ((await r.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
      } finally {
        await server.stop();
      }
      // Without the client certificate etcd refuses the connection.
      await assert.rejects(new EtcdClient([etcd.url], { ca: etcd.tls!.ca }).range('x'), EtcdError);
      assert.throws(() => etcdTlsFromFlags(undefined, etcd.files!.cert, undefined), /go together/);
    } finally {
      await etcd.stop();
    }
  });
});
