import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { WebSocketServer } from 'ws';
import { FakeClock } from '../../util/clock/clock.ts';
import { RestClient } from '../../rest/client.ts';
import { StreamClosedError } from '../../util/httpstream/wsstream.ts';
import { exec } from './remotecommand.ts';

test('a peer that stops answering pings is dropped after the deadline: exec fails instead of hanging', async () => {
  // A server that accepts the session, then goes silent: no output, no status, no pongs.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false, handleProtocols: () => 'v5.channel.k8s.io' });
  await once(wss, 'listening');
  const pings: number[] = [];
  wss.on('connection', (ws) => ws.on('ping', () => pings.push(pings.length)));
  const clock = new FakeClock();
  const client = new RestClient({ host: `http://127.0.0.1:${(wss.address() as { port: number }).port}` });
  try {
    const running = exec(client, { namespace: 'ns', pod: 'p', command: ['sleep'], stdout: new PassThrough(), heartbeat: { clock } });
    running.catch(() => undefined);
    await clock.waitForWaiters(1);
    for (let t = 0; t < 60_000; t += 5_000) await clock.step(5_000);
    while (pings.length < 11) await new Promise((r) => setImmediate(r));
    await clock.step(5_000);
    const err = await running.catch((e: unknown) => e);
    assert.ok(err instanceof StreamClosedError, String(err));
    assert.equal(err.closeCode, 1006);
  } finally {
    await client.close();
    for (const c of wss.clients) c.terminate();
    wss.close();
  }
});
