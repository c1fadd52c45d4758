/**
 * WebSocket connections to the API server for streaming subresources (exec, attach, portforward), as
 * client-go's transport/websocket/roundtripper.go: the handshake carries the config's authentication,
 * impersonation and User-Agent, uses its TLS settings and client certificate, and goes through its
 * proxy (an HTTP CONNECT tunnel). A refused handshake becomes an {@link UpgradeFailureError} whose
 * `cause` is the server's Status (a StatusError) when the response body holds one, so `isNotFound`,
 * `isBadRequest`, ... answer for it as for any other request.
 *
 * The `ws` package is used rather than undici's WebSocket: it exposes the HTTP response of a refused
 * handshake (needed for the Status), can pause reading (backpressure to the server when a consumer is
 * slow), and also serves the embedded API server's endpoints.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { isIP, type Socket } from 'node:net';
import WebSocket from 'ws';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { RestClient, UpgradeSettings } from './client.ts';
import { errorFromResponse, NetworkError } from './errors.ts';
import type { RestRequest } from './request.ts';

// node:http and node:https are loaded with require: an ESM import of a built-in module builds its
// facade by reading every export, and node:http's lazily loaded ones (WebSocket, …) then load Node's
// own bundled undici — about 2 MiB of RSS and tens of ms of CPU at the start of every process that
// imports the REST client, for a connection that only exec, attach and port-forward open.
const builtin = createRequire(import.meta.url);
const { request: httpRequest } = builtin('node:http') as typeof import('node:http');
const { request: httpsRequest } = builtin('node:https') as typeof import('node:https');

// RFC 7230 token characters: what `ws` accepts as a subprotocol.
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// client-go reads at most this much of a refused handshake's body (transport/websocket).
const maxErrorBodyBytes = 64 * 1024;

/**
 * The server refused to upgrade the connection (httpstream.UpgradeFailureError): a non-101 answer to
 * the handshake, or a subprotocol the client did not offer. `cause` is the server's Status as a
 * StatusError when the body held one.
 */
export class UpgradeFailureError extends KubeloomError {
  /** The HTTP status of the refusal, 0 when the handshake itself succeeded but was unusable. */
  readonly statusCode: number;
  constructor(message: string, statusCode: number, options?: { cause?: unknown }) {
    super('ERR_KUBE_UPGRADE_FAILURE', message, options);
    this.statusCode = statusCode;
  }
}

/** An open WebSocket and the subprotocol the server chose. The socket is paused: `resume()` it once listening. */
export interface WebSocketConnection {
  /** The open socket (paused). */
  socket: WebSocket;
  /** The subprotocol the server chose. */
  protocol: string;
}

/** Options of {@link dialWebSocket}. */
export interface DialWebSocketOptions {
  /** Subprotocols in order of preference (Sec-WebSocket-Protocol). */
  protocols: readonly string[];
  /** Aborts the handshake. */
  signal?: AbortSignal;
  /** Largest accepted message (default 64 MiB). */
  maxPayload?: number;
}

async function readLimited(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of res) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    length += buf.length;
    if (length >= maxErrorBodyBytes) break;
  }
  res.destroy();
  return Buffer.concat(chunks, length).subarray(0, maxErrorBodyBytes);
}

/**
 * A `createConnection` that reaches `target` through an HTTP(S) proxy with CONNECT, then starts TLS
 * over the tunnel for https targets.
 */
function proxiedConnection(settings: UpgradeSettings & { proxyUrl: URL }): (options: unknown, done: (err: Error | null, socket?: Duplex) => void) => undefined {
  const { url, proxyUrl } = settings;
  const secure = url.protocol === 'https:';
  const port = url.port !== '' ? url.port : secure ? '443' : '80';
  const authority = `${url.hostname}:${port}`;
  return (_options, done) => {
    const headers: Record<string, string> = { host: authority };
    if (proxyUrl.username !== '') {
      const user = `${decodeURIComponent(proxyUrl.username)}:${decodeURIComponent(proxyUrl.password)}`;
      headers['proxy-authorization'] = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    const send = proxyUrl.protocol === 'https:' ? httpsRequest : httpRequest;
    const req: ClientRequest = send({
      host: proxyUrl.hostname,
      port: proxyUrl.port !== '' ? proxyUrl.port : proxyUrl.protocol === 'https:' ? 443 : 80,
      method: 'CONNECT',
      path: authority,
      headers,
    });
    req.once('connect', (res: IncomingMessage, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new Error(`proxy ${proxyUrl.host} refused CONNECT ${authority}: ${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim()));
        return;
      }
      if (!secure) {
        done(null, socket);
        return;
      }
      const tls = tlsConnect({ socket, ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 ? { servername: url.hostname } : {}), ...settings.tls });
      tls.once('secureConnect', () => done(null, tls));
      tls.once('error', (err: Error) => done(err));
    });
    req.once('error', (err: Error) => done(err));
    req.end();
    return undefined;
  };
}

/**
 * Opens a WebSocket to `req` (an exec, attach or portforward URL built as data) with the client's
 * credentials, TLS and proxy. Resolves once the server accepted one of `protocols`.
 *
 * Rejects with {@link UpgradeFailureError} when the server answers anything but 101 or picks a
 * protocol that was not offered, {@link NetworkError} when no answer arrived, a ClientClosedError
 * when the client is or gets closed first, or the signal's reason. Closing the client later closes
 * the connection.
 */
export async function dialWebSocket(client: RestClient, req: RestRequest, options: DialWebSocketOptions): Promise<WebSocketConnection> {
  const { signal } = options;
  signal?.throwIfAborted();
  const settings = await client.upgradeSettings(req, signal);
  const url = new URL(settings.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  // A WebSocket handshake is always a GET, whatever verb the request was built with (as with gorilla/websocket).
  const describe = `GET ${settings.url.toString()}`;
  const wsOptions: WebSocket.ClientOptions = {
    headers: settings.headers as Record<string, string>,
    maxPayload: options.maxPayload ?? 64 * 1024 * 1024,
    perMessageDeflate: false,
    followRedirects: false,
    ...(settings.tls as WebSocket.ClientOptions),
  };
  if (settings.proxyUrl !== undefined) {
    (wsOptions as { createConnection?: unknown }).createConnection = proxiedConnection({ ...settings, proxyUrl: settings.proxyUrl });
  }
  // `ws` accepts only RFC 6455 tokens as subprotocols, but Kubernetes names one
  // `SPDY/3.1+portforward.k8s.io`; such protocols are offered and checked here instead.
  const tokens = options.protocols.every((p) => tokenPattern.test(p));
  let negotiated: string | undefined;
  if (!tokens) wsOptions.headers = { ...wsOptions.headers, 'sec-websocket-protocol': options.protocols.join(', ') };
  const socket = new WebSocket(url, tokens ? [...options.protocols] : [], wsOptions);
  // Closing the client fails the handshake with a ClientClosedError, or cuts the open connection.
  let onClientClosed = (_reason: unknown): void => socket.terminate();
  const release = client.trackConnection(describe, (reason) => onClientClosed(reason));
  socket.once('close', release);
  if (!tokens) {
    socket.once('upgrade', (res: IncomingMessage) => {
      const chosen = res.headers['sec-websocket-protocol'];
      negotiated = typeof chosen === 'string' ? chosen.trim() : '';
      delete res.headers['sec-websocket-protocol'];
    });
  }
  return new Promise<WebSocketConnection>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      socket.terminate();
      reject(err);
    };
    const onAbort = (): void => fail(signal!.reason);
    onClientClosed = (reason) => (settled ? socket.terminate() : fail(reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('unexpected-response', (_request: ClientRequest, res: IncomingMessage) => {
      const code = res.statusCode ?? 0;
      const statusLine = `${code} ${res.statusMessage ?? ''}`.trim();
      readLimited(res).then(
        (body) => {
          const text = body.toString('utf8').trim();
          const ct = res.headers['content-type'];
          // A Status body is the server's own error; any other answer gets the Status its HTTP code implies.
          const cause = errorFromResponse({ statusCode: code, body, ...(ct !== undefined ? { contentType: ct } : {}) });
          // As client-go's websocket round tripper: a Status's own message, else the response text.
          const synthesised = cause.status.details?.causes?.[0]?.reason === 'UnexpectedServerResponse';
          const message = synthesised ? text : (cause.status.message ?? '');
          const detail = message !== '' ? `: ${message}` : '';
          fail(new UpgradeFailureError(`${describe}: unable to upgrade connection (${statusLine})${detail}`, code, { cause }));
        },
        (err: unknown) => fail(new UpgradeFailureError(`${describe}: unable to upgrade connection (${statusLine}): unable to read error from server response`, code, { cause: err })),
      );
    });
    socket.once('error', (err) => {
      if (settled) return;
      if (/Server sent (an invalid|no) subprotocol/.test(err.message)) fail(new UpgradeFailureError(`${describe}: invalid protocol, expected one of ${JSON.stringify(options.protocols)}`, 0, { cause: err }));
      else fail(new NetworkError(describe, err));
    });
    socket.once('open', () => {
      if (settled) return;
      // Nothing may be read before the caller attached its handlers: data can follow the handshake
      // in the same packet and would be emitted before the promise continuation runs.
      socket.pause();
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      const protocol = negotiated ?? socket.protocol;
      if (!options.protocols.includes(protocol)) {
        socket.terminate();
        reject(new UpgradeFailureError(`${describe}: invalid protocol, expected one of ${JSON.stringify(options.protocols)}, got "${protocol}"`, 0));
        return;
      }
      resolve({ socket, protocol });
    });
  });
}
