/**
 * The embedded server's protobuf watch frames are encoded from the stored objects (not from their JSON
 * lines parsed again): byte for byte what encoding the JSON watch's events gives, for objects as stored
 * (ADDED, MODIFIED, DELETED, a DELETED for an object leaving a label selection) and for
 * PartialObjectMetadata; and so are GET and LIST answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startApiServer } from '../src/apiserver/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { encodeProtobuf, encodeProtobufWatchEvent } from '../src/runtime/protobuf/encode.ts';

/** Reads a watch until `count` events arrived: protobuf frames (length-delimited) or JSON lines. */
function readWatch(url: string, accept: string, count: number, protobuf: boolean): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const req = request(url, { headers: { accept } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          if (protobuf) {
            if (pending.length < 4 || pending.length < 4 + pending.readUInt32BE(0)) break;
            const len = pending.readUInt32BE(0);
            out.push(Buffer.from(pending.subarray(0, 4 + len)));
            pending = pending.subarray(4 + len);
          } else {
            const nl = pending.indexOf(0x0a);
            if (nl < 0) break;
            out.push(Buffer.from(pending.subarray(0, nl)));
            pending = pending.subarray(nl + 1);
          }
        }
        if (out.length >= count) {
          req.destroy();
          resolve(out.slice(0, count));
        }
      });
    });
    req.on('error', (err) => {
      if (out.length < count) reject(err);
    });
    req.end();
  });
}

test('protobuf watch frames equal the frames of the JSON events, for stored objects and PartialObjectMetadata', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const cms = newClientset({ host: server.url, qps: -1 }).coreV1().configMaps('default');
  const created = await cms.create({ metadata: { name: 'a', labels: { team: 'x' } }, data: { k: 'v' } });
  const rv = created.metadata!.resourceVersion!;
  const base = `${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`;
  const cases = [
    { name: 'objects', url: base, accept: 'application/vnd.kubernetes.protobuf;stream=watch', json: 'application/json;stream=watch', count: 3 },
    { name: 'selected', url: `${base}&labelSelector=team%3Dx`, accept: 'application/vnd.kubernetes.protobuf;stream=watch', json: 'application/json;stream=watch', count: 2 },
    {
      name: 'metadata',
      url: base,
      accept: 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      json: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      count: 3,
    },
  ];
  const watches = cases.flatMap((c) => [readWatch(c.url, c.accept, c.count, true), readWatch(c.url, c.json, c.count, false)]);
  // Two protobuf watchers of the same events: they share the frames.
  const twin = readWatch(base, cases[0]!.accept, 3, true);
  // Every watch starts from `rv`: it gets the changes below however late it opens.
  await cms.update({ ...created, data: { k: 'w' } });
  // Leaves the `team=x` selection: a DELETED of its previous state for the selecting watch.
  const moved = await cms.get('a');
  await cms.update({ ...moved, metadata: { ...moved.metadata, labels: { team: 'y' } } });
  await cms.delete('a');
  const got = await Promise.all(watches);
  for (const [i, c] of cases.entries()) {
    const frames = got[2 * i]!;
    const lines = got[2 * i + 1]!;
    const fromJson = lines.map((l) => {
      const e = JSON.parse(l.toString()) as { type: string; object: Record<string, unknown> };
      return encodeProtobufWatchEvent(e.type, e.object);
    });
    assert.deepEqual(
      frames.map((f) => f.toString('hex')),
      fromJson.map((f) => Buffer.from(f).toString('hex')),
      c.name,
    );
  }
  const types = got[3]!.map((l) => (JSON.parse(l.toString()) as { type: string }).type);
  assert.deepEqual(types, ['MODIFIED', 'DELETED'], 'the selecting watch sees the object leave');
  assert.deepEqual(
    (await twin).map((f) => f.toString('hex')),
    got[0]!.map((f) => f.toString('hex')),
  );
});

test('protobuf GET and LIST answers, encoded from the stored objects, equal the encoding of the JSON answers', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const cs = newClientset({ host: server.url, qps: -1 });
  await cs.coreV1().configMaps('default').create({ metadata: { name: 'a', labels: { l: '1' }, annotations: { n: 'x' } }, data: { k: 'v' }, binaryData: { b: 'AAE=' } });
  await cs.coreV1().configMaps('default').create({ metadata: { name: 'b' }, immutable: true });
  await cs.coreV1().pods('default').create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { limits: { cpu: '250m', memory: '64Mi' } } }] } });
  const get = async (path: string, accept: string): Promise<Buffer> => {
    const res = await fetch(`${server.url}${path}`, { headers: { accept } });
    assert.equal(res.status, 200, path);
    return Buffer.from(await res.arrayBuffer());
  };
  for (const path of ['/api/v1/namespaces/default/configmaps/a', '/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/default/configmaps?limit=1', '/api/v1/pods', '/api/v1/namespaces/default/pods/p']) {
    const protobuf = await get(path, 'application/vnd.kubernetes.protobuf');
    const json = JSON.parse((await get(path, 'application/json')).toString()) as Record<string, unknown>;
    assert.equal(protobuf.toString('hex'), Buffer.from(encodeProtobuf(json)).toString('hex'), path);
  }
});
