/**
 * Pod handlers for bench/streaming.ts, loaded by `kubeloom apiserver --pod-handlers`: a `source`
 * port that sends as many bytes as the first line asks for, a `sink` port that counts what it
 * receives and answers the count when the client half-closes, and `echo`/`cat` commands.
 */
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import type { PodHandlers } from '../../src/testing/index.ts';

const block = Buffer.alloc(256 * 1024, 0x5a);

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

const source = createServer((socket) => {
  socket.on('error', () => undefined);
  let head = '';
  socket.on('data', function onData(chunk: Buffer) {
    head += chunk.toString('latin1');
    const nl = head.indexOf('\n');
    if (nl < 0) return;
    socket.off('data', onData);
    let left = Number(head.slice(0, nl));
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, block.length);
        left -= n;
        if (!socket.write(n === block.length ? block : block.subarray(0, n))) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.end();
    };
    pump();
  });
});

const sink = createServer({ allowHalfOpen: true }, (socket) => {
  socket.on('error', () => undefined);
  let total = 0;
  socket.on('data', (c: Buffer) => (total += c.length));
  socket.on('end', () => socket.end(`${total}\n`));
});

const [sourcePort, sinkPort] = await Promise.all([listen(source), listen(sink)]);
// The servers must not keep the API server process alive on their own.
source.unref();
sink.unref();

export default {
  '*': {
    containers: {
      '*': async ({ command, stdin, stdout }) => {
        if (command[0] === 'echo') {
          stdout?.end(`${command.slice(1).join(' ')}\n`);
          return 0;
        }
        if (command[0] === 'cat' && stdin !== undefined && stdout !== undefined) {
          for await (const c of stdin) if (!stdout.write(c as Buffer)) await once(stdout, 'drain');
          return 0;
        }
        return 127;
      },
    },
    ports: { 1: { port: sourcePort }, 2: { port: sinkPort } },
  },
} satisfies PodHandlers;
