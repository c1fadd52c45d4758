/**
 * The metadata client keeps only metadata even when a server ignores its Accept header and sends
 * whole objects (client-go metadata/metadata.go's fallback decoding).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { RestClient } from '../rest/client.ts';
import { ResponseDecodeError } from '../rest/errors.ts';
import { MetadataClient } from './metadata-client.ts';

const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, data: { password: 'c2VjcmV0' } };
const partial = { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 's', namespace: 'ns', uid: 'u1' } };

async function withServer(answer: (url: string) => unknown, fn: (meta: MetadataClient, accepts: string[]) => Promise<void>): Promise<void> {
  const accepts: string[] = [];
  const server = http.createServer((req, res) => {
    accepts.push(req.headers.accept ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    const body = answer(req.url!);
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const rest = new RestClient({ host: `http://127.0.0.1:${port}`, qps: -1 });
  try {
    await fn(new MetadataClient(rest), accepts);
  } finally {
    await rest.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const secrets = { group: '', version: 'v1', resource: 'secrets' };

test('a server that answers whole objects: get, list and watch keep only metadata (no data reaches the caller)', async () => {
  await withServer(
    (url) => {
      if (url.includes('watch=true')) return `${JSON.stringify({ type: 'ADDED', object: secret })}\n`;
      if (url.endsWith('/secrets')) return { apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: '9' }, items: [{ metadata: secret.metadata, data: secret.data }] };
      return secret;
    },
    async (meta, accepts) => {
      const client = meta.resource(secrets).namespace('ns');
      assert.deepEqual(await client.get('s'), { metadata: secret.metadata });
      const list = await client.list();
      // Items keep their metadata only, and the TypeMeta the server sent them (none here, as
      // kube-apiserver sends list items): client-go's fallback unmarshals them as they are.
      assert.deepEqual(list, { metadata: { resourceVersion: '9' }, items: [{ metadata: secret.metadata }] });
      // The streamed forms (what informers use) strip the same way, batch by batch.
      const streamed: unknown[] = [];
      const envelope = await client.listStream({}, (batch) => void streamed.push(...batch));
      assert.deepEqual(envelope, { metadata: { resourceVersion: '9' } });
      assert.deepEqual(streamed, list.items);
      const items: unknown[] = [];
      for await (const item of client.listItems()) items.push(item);
      assert.deepEqual(items, list.items);
      const events = [];
      for await (const e of await client.watch()) {
        events.push(e);
        break;
      }
      assert.deepEqual(events, [{ type: 'ADDED', object: { metadata: secret.metadata } }]);
      const watch = (await client.watch())[Symbol.asyncIterator]() as AsyncIterator<unknown> & { nextBatch?: () => Promise<unknown> };
      assert.deepEqual(await watch.nextBatch?.(), [{ type: 'ADDED', object: { metadata: secret.metadata } }]);
      await watch.return?.();
      assert.match(accepts[0]!, /^application\/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application\/json$/);
    },
  );
});

test('PartialObjectMetadata answers pass unchanged; an answer without object metadata is a decode error', async () => {
  await withServer(
    (url) => (url.endsWith('/empty') ? { apiVersion: 'v1', kind: 'Secret' } : partial),
    async (meta) => {
      assert.deepEqual(await meta.resource(secrets).namespace('ns').get('s'), partial);
      await assert.rejects(meta.resource(secrets).namespace('ns').get('empty'), ResponseDecodeError);
    },
  );
});
