import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { SpdyConnection, SpdyStreamResetError, type SpdyStream } from './connection.ts';
import { RstStatus, SpdyProtocolError } from './frame.ts';

/** A client and a server connection over a loopback TCP connection. */
async function pair(onStream: (s: SpdyStream) => void): Promise<{ client: SpdyConnection; server: SpdyConnection; serverSocket: Socket; clientSocket: Socket; close(): void }> {
  const listener = createServer({ allowHalfOpen: true });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const clientSocket = connect({ port: (listener.address() as { port: number }).port, host: '127.0.0.1', allowHalfOpen: true });
  const [serverSocket] = await accepted;
  const server = new SpdyConnection(serverSocket, { server: true, onStream });
  const client = new SpdyConnection(clientSocket, { server: false });
  return {
    client,
    server,
    serverSocket,
    clientSocket,
    close: () => {
      clientSocket.destroy();
      serverSocket.destroy();
      listener.close();
    },
  };
}

async function readAll(s: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const c of s) text += (c as Buffer).toString();
  return text;
}

test('a stream carries data both ways and half-closes each direction independently', async () => {
  const seen: Array<Record<string, string[]>> = [];
  const p = await pair((s) => {
    seen.push(s.headers);
    void s.reply();
    void readAll(s).then((text) => s.end(`echo:${text}`));
  });
  try {
    const s = await p.client.createStream({ streamtype: ['data'], port: ['80'] });
    assert.equal(s.id, 1);
    s.end('hello');
    assert.equal(await readAll(s), 'echo:hello');
    const second = await p.client.createStream({ streamtype: ['error'], port: ['80'] });
    assert.equal(second.id, 3);
    second.end();
    assert.equal(await readAll(second), 'echo:');
    assert.deepEqual(seen, [{ streamtype: ['data'], port: ['80'] }, { streamtype: ['error'], port: ['80'] }]);
  } finally {
    p.close();
  }
});

test('a refused stream rejects createStream with SpdyStreamResetError', async () => {
  const p = await pair((s) => s.reset(RstStatus.refusedStream));
  try {
    const err = await p.client.createStream({ port: ['1'] }).catch((e: unknown) => e);
    assert.ok(err instanceof SpdyStreamResetError);
    assert.equal(err.status, RstStatus.refusedStream);
  } finally {
    p.close();
  }
});

test('pings are answered by the peer', async () => {
  const p = await pair(() => undefined);
  try {
    await p.client.ping();
    await p.server.ping();
  } finally {
    p.close();
  }
});

test('garbage on the wire ends the connection with SpdyProtocolError instead of hanging', async () => {
  const p = await pair(() => undefined);
  try {
    p.clientSocket.write(Buffer.from([0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0c, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xde, 0xad]));
    const err = await p.server.closed;
    assert.ok(err instanceof SpdyProtocolError, String(err));
  } finally {
    p.close();
  }
});

test('when the transport drops, open streams fail and pending createStream calls reject', async () => {
  let opened: SpdyStream | undefined;
  const p = await pair((s) => {
    opened = s;
    void s.reply();
  });
  try {
    const s = await p.client.createStream({ port: ['1'] });
    const failed = once(s, 'error');
    p.serverSocket.destroy();
    const [err] = (await failed) as [Error];
    assert.ok(err instanceof SpdyStreamResetError);
    await assert.rejects(p.client.createStream({ port: ['2'] }), SpdyStreamResetError);
    assert.ok(opened !== undefined);
  } finally {
    p.close();
  }
});

test('a reader that stops reading holds the writer back (no unbounded buffering)', async () => {
  let serverStream: SpdyStream | undefined;
  const p = await pair((s) => {
    serverStream = s;
    void s.reply();
  });
  try {
    const s = await p.client.createStream({ port: ['1'] });
    const chunk = Buffer.alloc(64 * 1024);
    let accepted = 0;
    let writing = true;
    const writer = (async () => {
      while (writing && accepted < 256 * 1024 * 1024) {
        accepted += chunk.length;
        if (!s.write(chunk)) await once(s, 'drain');
      }
    })();
    let last = -1;
    for (let i = 0; i < 100 && accepted !== last; i++) {
      last = accepted;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(accepted < 32 * 1024 * 1024, `accepted ${accepted} bytes with nobody reading`);
    writing = false;
    serverStream!.resume();
    await writer;
    s.end();
    await once(serverStream!, 'end');
  } finally {
    p.close();
  }
});
