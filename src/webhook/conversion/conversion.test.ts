import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { noopLogger } from '../../tools/events/logger.ts';
import { ConversionWebhook } from './index.ts';

type Obj = Record<string, unknown>;

// v1 (spoke): spec.size a number; v2 (hub): spec.size a string; v3 (spoke): spec.dimensions.size.
function widgets(): ConversionWebhook {
  return new ConversionWebhook({ logger: noopLogger }).register({
    group: 'example.com',
    kind: 'Widget',
    hub: 'v2',
    spokes: {
      v1: {
        convertTo: (o: Obj) => ({ ...o, spec: { size: String((o.spec as Obj).size) } }),
        convertFrom: (o: Obj) => {
          const size = Number((o.spec as Obj).size);
          if (Number.isNaN(size)) throw new Error(`spec.size ${JSON.stringify((o.spec as Obj).size)} is not a number`);
          return { ...o, spec: { size } };
        },
      },
      v3: {
        convertTo: (o: Obj) => ({ ...o, spec: { size: (o.spec as { dimensions: { size: string } }).dimensions.size } }),
        convertFrom: (o: Obj) => ({ ...o, spec: { dimensions: { size: (o.spec as Obj).size } } }),
      },
    },
  });
}

const obj = (v: string, spec: Obj, name = 'w'): Obj => ({ apiVersion: `example.com/${v}`, kind: 'Widget', metadata: { name }, spec });

test('hub and spokes: spoke → hub by convertTo, hub → spoke by convertFrom, spoke → spoke through the hub; the desired apiVersion is set', async () => {
  const c = widgets();
  const r = await c.convert({ uid: 'u', desiredAPIVersion: 'example.com/v3', objects: [obj('v1', { size: 3 }, 'a'), obj('v2', { size: '4' }, 'b')] });
  assert.deepEqual(r, {
    uid: 'u',
    convertedObjects: [obj('v3', { dimensions: { size: '3' } }, 'a'), obj('v3', { dimensions: { size: '4' } }, 'b')],
    result: { metadata: {}, status: 'Success' },
  });
  assert.deepEqual((await c.convert({ uid: 'u', desiredAPIVersion: 'example.com/v2', objects: [obj('v1', { size: 5 })] })).convertedObjects, [obj('v2', { size: '5' })]);
  assert.deepEqual((await c.convert({ uid: 'u', desiredAPIVersion: 'example.com/v1', objects: [obj('v2', { size: '6' })] })).convertedObjects, [obj('v1', { size: 6 })]);
});

test('any failing object fails the whole review with status Failure and the message', async () => {
  const c = widgets();
  const fail = async (desiredAPIVersion: string, o: Obj): Promise<string | undefined> => {
    const r = await c.convert({ uid: 'u', desiredAPIVersion, objects: [obj('v2', { size: '1' }, 'ok'), o] });
    assert.equal(r.convertedObjects, null);
    assert.equal(r.result.status, 'Failure');
    return r.result.message;
  };
  assert.equal(await fail('example.com/v1', obj('v2', { size: 'big' })), 'spec.size "big" is not a number');
  assert.equal(
    await fail('example.com/v1', obj('v3', { dimensions: { size: 'big' } })),
    'example.com/v1, Kind=Widget failed to convert from hub version example.com/v2, Kind=Widget : spec.size "big" is not a number',
  );
  assert.equal(await fail('example.com/v1', obj('v9', {})), 'no kind "Widget" is registered for version "example.com/v9"');
  assert.equal(await fail('example.com/v7', obj('v2', {})), 'no kind "Widget" is registered for version "example.com/v7"');
  assert.equal(await fail('example.com/v1', { ...obj('v1', {}), kind: 'Gadget' }), 'no kind "Gadget" is registered for version "example.com/v1"');
  assert.equal(await fail('example.com/v1', obj('v1', { size: 1 })), 'conversion is not allowed between same type example.com/v1, Kind=Widget');
  assert.equal(await fail('example.com/v1', { apiVersion: 'example.com/v1', metadata: {} }), `Object 'Kind' is missing in '{"apiVersion":"example.com/v1","metadata":{}}'`);
});

test('over HTTP: the review comes back in its own apiVersion with the uid and without the request; bad bodies get an empty 400', async (t) => {
  const c = widgets();
  const server: Server = createServer((req, res) => void c.serveHTTP(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const post = (body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const rq = request({ host: '127.0.0.1', port, method: 'POST', path: '/convert', headers: { 'content-type': 'application/json' } }, (rs) => {
        let text = '';
        rs.setEncoding('utf8');
        rs.on('data', (d: string) => (text += d));
        rs.on('end', () => resolve({ status: rs.statusCode ?? 0, text }));
      });
      rq.on('error', reject);
      rq.end(body);
    });
  for (const apiVersion of ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1']) {
    const r = await post(JSON.stringify({ apiVersion, kind: 'ConversionReview', request: { uid: 'abc', desiredAPIVersion: 'example.com/v1', objects: [obj('v2', { size: '2' })] } }));
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), { kind: 'ConversionReview', apiVersion, response: { uid: 'abc', convertedObjects: [obj('v1', { size: 2 })], result: { metadata: {}, status: 'Success' } } });
  }
  assert.deepEqual(await post('{nope'), { status: 400, text: '' });
  assert.deepEqual(await post(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' })), { status: 400, text: '' });
});
