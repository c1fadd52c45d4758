/**
 * Port-forward sessions of the embedded API server, served as the kubelet serves them
 * (`pkg/kubelet/cri/streaming/portforward/httpstream.go`): the client opens SPDY streams in pairs that
 * share a `requestID` — an error stream and a data stream, both naming the pod `port` — and each
 * complete pair is one forwarded TCP connection. The data stream is connected to the port's target
 * (a TCP address or a function the test supplies); a failure is written to the error stream as text.
 *
 * The SPDY connection arrives either tunnelled in WebSocket binary messages (subprotocol
 * `SPDY/3.1+portforward.k8s.io`, client-go's tools/portforward/tunneling_connection.go, which kube-apiserver
 * 1.30+ accepts) or over the raw socket after `Upgrade: SPDY/3.1`.
 */
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { createWebSocketStream } from 'ws';
import { RstStatus } from '../../util/httpstream/spdy/frame.ts';
import { SpdyConnection, type SpdyStream } from '../../util/httpstream/spdy/connection.ts';
import { portTargetFor, type PodHandler } from './pod-handlers.ts';

/** The port-forward stream protocol (kubelet portforward.ProtocolV1Name). */
export const PortForwardProtocolV1Name = 'portforward.k8s.io';
/** The WebSocket subprotocol of SPDY tunnelled over WebSocket (SPDY/3.1 + the port-forward protocol). */
export const SpdyTunnelProtocol = `SPDY/3.1+${PortForwardProtocolV1Name}`;

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
}

/** Checks a new stream's headers as httpStreamReceived does; returns the reason to refuse it, if any. */
function invalidStream(stream: SpdyStream): string | undefined {
  const port = stream.header('port');
  if (port === undefined || port === '') return '"port" header is required';
  if (!/^\d+$/.test(port) || Number(port) > 65535) return `unable to parse "${port}" as a port`;
  if (Number(port) < 1) return `port "${port}" must be > 0`;
  const type = stream.header('streamtype');
  if (type === undefined || type === '') return '"streamType" header is required';
  if (type !== 'error' && type !== 'data') return `invalid stream type "${type}"`;
  return undefined;
}

/** Connects one complete pair to the port's target. */
function forward(pair: Required<StreamPair>, podName: string, uid: string, handler: PodHandler): void {
  const { data, error } = pair;
  const port = Number(data.header('port'));
  error.on('error', () => undefined);
  data.on('error', () => undefined);
  // The client half-closes the error stream at once; nothing is read from it.
  error.resume();
  const fail = (why: string): void => {
    const message = `error forwarding port ${port} to pod ${podName}, uid ${uid}: ${why}`;
    error.end(message);
    data.end();
  };
  const target = portTargetFor(handler, port);
  if (target === undefined) {
    fail(`no pod handler serves port ${port}`);
    return;
  }
  if (typeof target === 'function') {
    data.once('close', () => error.end());
    try {
      target(data);
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
    return;
  }
  const host = target.host ?? '127.0.0.1';
  const socket = connect({ host, port: target.port });
  let connected = false;
  socket.once('connect', () => {
    connected = true;
    data.pipe(socket);
    socket.pipe(data);
  });
  socket.on('error', (err) => {
    if (!connected) {
      fail(`failed to connect to ${host}:${target.port}: ${err.message}`);
      return;
    }
    data.destroy();
  });
  socket.once('close', () => {
    if (connected && !error.writableEnded) error.end();
  });
  data.once('close', () => socket.destroy());
}

/** Serves the port-forward protocol on a SPDY connection over `transport`. */
function serveSpdy(transport: Duplex, podName: string, uid: string, handler: PodHandler): SpdyConnection {
  const pairs = new Map<string, StreamPair>();
  const conn = new SpdyConnection(transport, {
    server: true,
    onStream: (stream) => {
      const invalid = invalidStream(stream);
      if (invalid !== undefined) {
        stream.reset(RstStatus.protocolError);
        return;
      }
      const type = stream.header('streamtype') as 'data' | 'error';
      // Without a requestID the id follows from the stream ids, as the kubelet derives it.
      const requestId = stream.header('requestid') ?? String(type === 'error' ? stream.id : stream.id - 2);
      let pair = pairs.get(requestId);
      if (pair === undefined) {
        pair = {};
        pairs.set(requestId, pair);
      }
      if (pair[type] !== undefined) {
        void stream.reply().then(() => pair.error?.write(`error processing stream for request ${requestId}: ${type} stream already assigned`));
        return;
      }
      pair[type] = stream;
      void stream.reply().catch(() => undefined);
      if (pair.data !== undefined && pair.error !== undefined) {
        pairs.delete(requestId);
        forward({ data: pair.data, error: pair.error }, podName, uid, handler);
      }
    },
  });
  return conn;
}

/** Serves a port-forward session tunnelled in WebSocket binary messages. */
export function servePortForwardTunnel(ws: WebSocket, podName: string, uid: string, handler: PodHandler): void {
  const duplex = createWebSocketStream(ws);
  duplex.on('error', () => undefined);
  const conn = serveSpdy(duplex, podName, uid, handler);
  void conn.closed.then(() => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  });
}

/** Serves a port-forward session on a socket after answering its `Upgrade: SPDY/3.1` with 101. */
export function servePortForwardSpdy(socket: Duplex, head: Buffer, podName: string, uid: string, handler: PodHandler): void {
  socket.write(['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', 'Upgrade: SPDY/3.1', `X-Stream-Protocol-Version: ${PortForwardProtocolV1Name}`, '', ''].join('\r\n'));
  if (head.length > 0) socket.unshift(head);
  const conn = serveSpdy(socket, podName, uid, handler);
  void conn.closed.then(() => socket.destroy());
}
