import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startApiServer } from '../../src/apiserver/server.ts';
import { runProbe } from './probe.ts';

// golden.json: the same requests answered by a real kube-apiserver v1.24 (record.ts), normalised.
const golden = JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')) as Record<string, string>;

test('JSON answers (create, GET, LIST, watch, merge patch, error Statuses) have kube-apiserver v1.24 key order byte for byte', async () => {
  const server = await startApiServer();
  try {
    const answers = await runProbe({ url: server.url });
    assert.deepEqual(Object.keys(answers), Object.keys(golden));
    for (const [name, body] of Object.entries(golden)) assert.equal(answers[name], body, name);
  } finally {
    await server.stop();
  }
});
