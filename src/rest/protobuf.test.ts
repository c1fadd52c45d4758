import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, isNotFound } from '../apimachinery/errors.ts';
import type { WatchEvent } from '../apimachinery/watch.ts';
import { startApiServer } from '../apiserver/index.ts';
import { decodeProtobuf } from '../runtime/protobuf/decode.ts';
import { encodeProtobuf, encodeProtobufWatchEvent } from '../runtime/protobuf/encode.ts';
import { RestClient } from './client.ts';
import { ContentTypeProtobuf, ProtobufAcceptContentTypes, groupVersionOfPath, negotiatedAccept } from './content-negotiation.ts';
import { ResponseDecodeError, WatchDecodeError } from './errors.ts';
import { ProtobufListDecoder } from './protobuf-list-decoder.ts';
import { ProtobufWatchDecoder } from './protobuf-watch-decoder.ts';
import { buildCreate, buildGet, buildList, buildWatch } from './request.ts';

type Obj = Record<string, unknown>;

const cm = (name: string, data: Record<string, string> = {}): Obj => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default', creationTimestamp: '2024-01-02T03:04:05Z', labels: { app: 'x' } }, data });

function chunks(body: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  for (let k = 0; i < body.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(body.subarray(i, i + n));
    i += n;
  }
  return out;
}

test('ProtobufListDecoder hands over each item as soon as its bytes are complete, whatever the chunk boundaries', () => {
  const items = Array.from({ length: 40 }, (_, i) => cm(`c${i}`, { k: 'v'.repeat(i * 13) }));
  const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '77', continue: 'next' }, items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) };
  const body = encodeProtobuf(list);
  for (const sizes of [[1], [3, 7, 1], [64], [body.length]]) {
    const decoder = new ProtobufListDecoder<Obj>();
    const batches: Obj[][] = [];
    for (const c of chunks(body, sizes)) {
      const out: Obj[] = [];
      decoder.write(c, out);
      if (out.length > 0) batches.push(out);
    }
    assert.deepEqual(decoder.end(), { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '77', continue: 'next' } });
    assert.deepEqual(batches.flat(), list.items, `chunks of ${sizes.join(',')}`);
    // Byte by byte, every item arrives alone: nothing waits for the end of the body.
    if (sizes.length === 1 && sizes[0] === 1) assert.equal(batches.length, 40);
  }
});

test('ProtobufListDecoder: a truncated body is a ResponseDecodeError, a Status body a StatusError, an empty list has items []', () => {
  const body = encodeProtobuf({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [cm('a'), cm('b')] });
  const cut = new ProtobufListDecoder<Obj>();
  const got: Obj[] = [];
  cut.write(body.subarray(0, body.length - 5), got);
  assert.equal(got.length, 1);
  assert.throws(() => cut.end(), ResponseDecodeError);
  const status = new ProtobufListDecoder<Obj>();
  status.write(encodeProtobuf({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'gone', reason: 'Expired', code: 410 }), []);
  assert.throws(() => status.end(), (err: unknown) => err instanceof StatusError && err.status.code === 410 && err.status.reason === 'Expired');
  const empty = new ProtobufListDecoder<Obj>();
  empty.write(encodeProtobuf({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '3' }, items: [] }), []);
  assert.deepEqual(empty.end(), { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '3' } });
  assert.throws(() => new ProtobufListDecoder<Obj>().write(Buffer.from('{"kind":"PodList"}'), []), ResponseDecodeError);
});

test('ProtobufWatchDecoder reads length-delimited WatchEvent frames split anywhere, and reports a truncated last frame', () => {
  const frames = Buffer.concat([
    encodeProtobufWatchEvent('ADDED', cm('a')),
    encodeProtobufWatchEvent('MODIFIED', cm('a', { x: 'y' })),
    encodeProtobufWatchEvent('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: 'too old' }),
  ]);
  for (const sizes of [[1], [5, 2], [frames.length]]) {
    const decoder = new ProtobufWatchDecoder<Obj>();
    const out: Array<WatchEvent<Obj>> = [];
    for (const c of chunks(frames, sizes)) assert.equal(decoder.write(c, out), undefined);
    assert.equal(decoder.end(out), undefined);
    assert.deepEqual(
      out.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'ERROR'],
    );
    assert.deepEqual(out[1]!.object, cm('a', { x: 'y' }));
    assert.equal((out[2]!.object as { code?: number }).code, 410);
  }
  const decoder = new ProtobufWatchDecoder<Obj>();
  decoder.write(frames.subarray(0, 20), []);
  assert.equal(decoder.midEvent, true);
  assert.ok(decoder.end([]) instanceof WatchDecodeError);
});

test('protobuf is asked only for built-in group-versions: custom resources, aggregated APIs and raw paths keep their Accept header', () => {
  const settings = { acceptContentTypes: ProtobufAcceptContentTypes };
  assert.equal(groupVersionOfPath('/api/v1/namespaces/a/pods'), 'v1');
  assert.equal(groupVersionOfPath('/apis/apps/v1/deployments'), 'apps/v1');
  assert.equal(negotiatedAccept(settings, buildList({ group: '', version: 'v1', resource: 'pods' })), ProtobufAcceptContentTypes);
  assert.equal(negotiatedAccept(settings, buildWatch({ group: 'apps', version: 'v1', resource: 'deployments' })), ProtobufAcceptContentTypes);
  assert.equal(negotiatedAccept(settings, buildList({ group: 'example.com', version: 'v1', resource: 'widgets' })), 'application/json');
  assert.equal(negotiatedAccept(settings, buildList({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' })), 'application/json');
  assert.equal(negotiatedAccept({}, buildList({ group: '', version: 'v1', resource: 'pods' })), 'application/json');
  assert.equal(negotiatedAccept(settings, buildGet({ group: '', version: 'v1', namespace: 'a', resource: 'services', name: 's', subresource: 'proxy' })), 'application/json');
  // A request that asks for something of its own (a Table) keeps it.
  const table = buildList({ group: '', version: 'v1', resource: 'pods' }, {}, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  assert.equal(negotiatedAccept(settings, table), 'application/json;as=Table;v=v1;g=meta.k8s.io');
});

test('a protobuf client reads from the embedded server exactly what a JSON client reads: get, list, watch, errors; and writes protobuf bodies', async () => {
  const server = await startApiServer();
  const json = new RestClient({ host: server.url, qps: -1 });
  const pb = json.withConfig({ acceptContentTypes: ProtobufAcceptContentTypes, contentType: ContentTypeProtobuf });
  try {
    const loc = { group: '', version: 'v1', namespace: 'default', resource: 'configmaps' };
    const created = await pb.json<Obj>(buildCreate(loc, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', labels: { a: 'b' } }, data: { k: 'v' }, binaryData: { b: 'AAEC' } }));
    assert.equal((created.metadata as Obj).name, 'one');
    assert.deepEqual(created.binaryData, { b: 'AAEC' });
    // The server answered protobuf.
    const raw = await pb.do(buildGet({ ...loc, name: 'one' }));
    assert.equal(raw.headers['content-type'], ContentTypeProtobuf);
    assert.deepEqual(await pb.json(buildGet({ ...loc, name: 'one' })), await json.json(buildGet({ ...loc, name: 'one' })));
    const fromJson: Obj[] = [];
    const fromPb: Obj[] = [];
    const envJson = await json.list<Obj>(buildList(loc), (items) => void fromJson.push(...items));
    const envPb = await pb.list<Obj>(buildList(loc), (items) => void fromPb.push(...items));
    assert.deepEqual(fromPb, fromJson);
    assert.deepEqual(envPb, envJson);
    // PartialObjectMetadata(List) in protobuf, as kube-apiserver answers it; Tables have no protobuf form (406).
    for (const as of ['PartialObjectMetadataList', 'Table']) {
      const accept = (type: string): string => `${type};as=${as};g=meta.k8s.io;v=v1`;
      const asJson = await json.json(buildList(loc, {}, { accept: accept('application/json') }));
      const raw = await json.do(buildList(loc, {}, { accept: `${accept(ContentTypeProtobuf)},${accept('application/json')}` }));
      assert.equal(raw.headers['content-type'], as === 'Table' ? 'application/json' : ContentTypeProtobuf);
      assert.deepEqual(as === 'Table' ? JSON.parse(raw.body.toString('utf8')) : decodeProtobuf(raw.body), asJson, as);
    }
    await assert.rejects(pb.json(buildGet({ ...loc, name: 'missing' })), (err: unknown) => isNotFound(err) && (err as StatusError).status.message === 'configmaps "missing" not found');

    const watch = await pb.watch<Obj>(buildWatch(loc, { resourceVersion: String(envPb.metadata?.resourceVersion) }));
    await json.json(buildCreate(loc, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } }));
    for await (const event of watch) {
      assert.equal(event.type, 'ADDED');
      assert.deepEqual(event.object, await json.json(buildGet({ ...loc, name: 'two' })));
      break;
    }
  } finally {
    await json.close();
    await server.stop();
  }
});
