/**
 * The embedded API server's streaming subresources — `pods/exec`, `pods/attach`, `pods/portforward` —
 * reached through HTTP Upgrade requests. It checks what kube-apiserver checks before it hands a
 * connection to a kubelet (`pkg/registry/core/pod/strategy.go` streamLocation/PortForwardLocation:
 * the pod exists, the container is one of the pod's, the pod is on a node) and then serves the
 * session itself with the handlers the test supplied (./pod-handlers.ts):
 *
 * - exec/attach: WebSocket `v5.channel.k8s.io` or `v4.channel.k8s.io` (./exec.ts);
 * - portforward: SPDY/3.1 tunnelled over WebSocket (`SPDY/3.1+portforward.k8s.io`, what kubectl
 *   1.31+ sends) or over a plain `Upgrade: SPDY/3.1` (what older kubectl and client-go send) (./portforward.ts).
 *
 * A pod with handlers is served even without `spec.nodeName` (tests need no scheduler); a pod without
 * handlers gets kube-apiserver's answer for a pod that has no node, or 503 when it names one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { StatusError } from '../../apimachinery/errors.ts';
import { StreamProtocolV4Name, StreamProtocolV5Name } from '../../tools/remotecommand/constants.ts';
import { badRequest, internalError, notFound } from '../status.ts';
import type { AccessControl } from '../authz/access-control.ts';
import { ImpersonationError } from '../authz/impersonation.ts';
import type { Storage } from '../storage.ts';
import { objectKey } from '../handlers/scope.ts';
import { sendError } from '../handlers/response.ts';
import { serveExecSession, type ExecRequest } from './exec.ts';
import { containerHandlerFor, podHandlerFor, type PodHandler, type PodHandlers } from './pod-handlers.ts';
import { PortForwardProtocolV1Name, SpdyTunnelProtocol, servePortForwardSpdy, servePortForwardTunnel } from './portforward.ts';

/** Exec/attach WebSocket protocols the server accepts, most preferred first. */
const execProtocols = [StreamProtocolV5Name, StreamProtocolV4Name];

const podsRef = { group: '', resource: 'pods' };
const streamingPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)\/?$/;

const reasonPhrases: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/** Answers an upgrade request with a plain HTTP response and closes the connection. */
function reject(socket: Duplex, code: number, body: string, headers: Record<string, string> = {}, contentType = 'application/json'): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const bytes = Buffer.from(body);
  const lines = [`HTTP/1.1 ${code} ${reasonPhrases[code] ?? 'Error'}`, `Content-Type: ${contentType}`, `Content-Length: ${bytes.length}`, 'Cache-Control: no-cache, private', 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), bytes]));
}

function rejectStatus(socket: Duplex, err: StatusError): void {
  reject(socket, err.status.code ?? 500, JSON.stringify(err.status));
}

interface PodSpecLike {
  nodeName?: string;
  containers?: Array<{ name?: string }>;
  initContainers?: Array<{ name?: string }>;
  ephemeralContainers?: Array<{ name?: string }>;
}

/** validateContainer from the pod strategy: the named container must be the pod's; none names the only one. */
function validateContainer(container: string, podName: string, spec: PodSpecLike): string {
  const all = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name ?? '');
  if (container === '') {
    const regular = spec.containers ?? [];
    if (regular.length === 1) return regular[0]!.name ?? '';
    if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${podName}`);
  return container;
}

function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (header === undefined) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

/** Options of {@link StreamingHandler}. */
export interface StreamingHandlerOptions {
  storage: Storage;
  /** The server's authentication and authorization: requests pass them before anything else. */
  access: AccessControl;
  handlers?: PodHandlers;
}

/** Serves upgrade requests for the streaming subresources; one per server. */
export class StreamingHandler {
  readonly #storage: Storage;
  readonly #access: AccessControl;
  #handlers: PodHandlers | undefined;
  readonly #perPod = new Map<string, PodHandler>();
  readonly #sockets = new Set<Duplex>();

  constructor(options: StreamingHandlerOptions) {
    this.#storage = options.storage;
    this.#access = options.access;
    this.#handlers = options.handlers;
  }

  /** Replaces the handlers of every pod. */
  setPodHandlers(handlers: PodHandlers | undefined): void {
    this.#handlers = handlers;
  }

  /** Sets (or with undefined removes) one pod's handler; it takes precedence over {@link setPodHandlers}'. */
  setPodHandler(namespace: string, pod: string, handler: PodHandler | undefined): void {
    if (handler === undefined) this.#perPod.delete(`${namespace}/${pod}`);
    else this.#perPod.set(`${namespace}/${pod}`, handler);
  }

  /** Drops every open streaming connection (server stop). */
  destroyAll(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  /** The `'upgrade'` listener of the HTTP server; never throws. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    this.#route(req, socket, head).catch((err: unknown) => {
      if (err instanceof ImpersonationError) {
        reject(socket, 500, `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${err.message}\n`, {}, 'text/plain; charset=utf-8');
        return;
      }
      rejectStatus(socket, err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err)));
    });
  }

  /** Whether an upgrade request is one this handler takes (a streaming subresource path). */
  wantsUpgrade(req: IncomingMessage): boolean {
    return streamingPath.test(new URL(req.url ?? '/', 'http://localhost').pathname);
  }

  /**
   * A plain (not upgraded) request for a streaming subresource: answered after the same checks as an
   * upgrade, with kube-apiserver's 400 "Upgrade request required" when they pass. Returns false for
   * any other path (the caller serves it).
   */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean {
    if (!streamingPath.test(new URL(req.url ?? '/', 'http://localhost').pathname)) return false;
    this.#route(req, undefined, Buffer.alloc(0)).catch((err: unknown) => {
      if (err instanceof ImpersonationError && !res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${err.message}\n`);
        return;
      }
      sendError(res, err);
    });
    return true;
  }

  async #route(req: IncomingMessage, socket: Duplex | undefined, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // authn → impersonation → authz (create on pods/exec for POST, get for GET), as for every request.
    const user = await this.#access.identify(req);
    this.#access.authorizeRequest(user, req.method ?? 'GET', url.pathname, url.searchParams);
    const m = streamingPath.exec(url.pathname);
    if (m === null) {
      // Only the streaming subresources are upgraded; everything else is answered as kube-apiserver
      // answers an upgrade it does not serve.
      throw badRequest('Upgrade request for a path that does not support connection upgrades');
    }
    const [, rawNs, rawPod, subresource] = m as unknown as [string, string, string, 'exec' | 'attach' | 'portforward'];
    const namespace = decodeURIComponent(rawNs);
    const podName = decodeURIComponent(rawPod);
    if (req.method !== 'GET' && req.method !== 'POST') throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the server does not allow this method on the requested resource`, reason: 'MethodNotAllowed', code: 405 });
    const stored = this.#storage.get('pods', objectKey(namespace, podName));
    if (stored === undefined) throw notFound(podsRef, podName);
    const spec = (stored.obj['spec'] ?? {}) as PodSpecLike;
    const rawUid = (stored.obj['metadata'] as { uid?: unknown } | undefined)?.uid;
    const uid = typeof rawUid === 'string' ? rawUid : '';
    const q = url.searchParams;
    const isWebSocket = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';

    let container = '';
    if (subresource !== 'portforward') container = validateContainer(q.get('container') ?? '', podName, spec);
    const handler = this.#perPod.get(`${namespace}/${podName}`) ?? podHandlerFor(this.#handlers, namespace, podName);
    if (handler === undefined) {
      const nodeName = spec.nodeName ?? '';
      if (nodeName === '') throw badRequest(`pod ${podName} does not have a host assigned`);
      // kube-apiserver 1.24 words a missing node this way (the node lookup reports the pods resource).
      if (this.#storage.get('nodes', objectKey('', nodeName)) === undefined) throw notFound(podsRef, nodeName);
      throw internalError(`error dialing backend: no pod handler serves pod ${namespace}/${podName} in the embedded API server`);
    }
    if (socket === undefined) throw badRequest('Upgrade request required');

    if (subresource === 'portforward') {
      if (isWebSocket) {
        const offered = offeredProtocols(req);
        if (!offered.includes(SpdyTunnelProtocol)) {
          reject(socket, 400, `unable to upgrade: port-forward over WebSocket needs the ${SpdyTunnelProtocol} subprotocol; client offered [${offered.join(' ')}]`, {}, 'text/plain; charset=utf-8');
          return;
        }
        this.#accept(req, socket, head, SpdyTunnelProtocol, (ws) => servePortForwardTunnel(ws, podName, uid, handler));
        return;
      }
      if ((req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') throw badRequest(`unsupported upgrade protocol ${JSON.stringify(req.headers.upgrade ?? '')}`);
      const versions = String(req.headers['x-stream-protocol-version'] ?? '')
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      if (versions.length === 0) {
        reject(socket, 400, 'unable to upgrade: X-Stream-Protocol-Version is required', {}, 'text/plain; charset=utf-8');
        return;
      }
      if (!versions.includes(PortForwardProtocolV1Name)) {
        const message = `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(' ')}], server accepts [${PortForwardProtocolV1Name}]`;
        reject(socket, 403, `${message}\n`, { 'X-Accepted-Stream-Protocol-Versions': PortForwardProtocolV1Name }, 'text/plain; charset=utf-8');
        return;
      }
      servePortForwardSpdy(socket, head, podName, uid, handler);
      return;
    }

    const containerHandler = containerHandlerFor(handler, container);
    if (containerHandler === undefined) {
      // The kubelet's words for a container that is not running.
      reject(socket, 404, `container not found (${JSON.stringify(container)})`, {}, 'text/plain; charset=utf-8');
      return;
    }
    const execReq: ExecRequest = {
      namespace,
      pod: podName,
      container,
      command: q.getAll('command'),
      attach: subresource === 'attach',
      stdin: boolParam(q, 'stdin'),
      stdout: boolParam(q, 'stdout'),
      stderr: boolParam(q, 'stderr'),
      tty: boolParam(q, 'tty'),
    };
    if (!execReq.stdin && !execReq.stdout && !execReq.stderr) throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
    if (!execReq.attach && execReq.command.length === 0) throw badRequest('you must specify at least 1 command');
    if (!isWebSocket) {
      reject(socket, 400, `unable to upgrade: the embedded API server serves ${subresource} over WebSocket (${execProtocols.join(', ')}) only, not ${JSON.stringify(req.headers.upgrade ?? '')}`, {}, 'text/plain; charset=utf-8');
      return;
    }
    const offered = offeredProtocols(req);
    const chosen = offered.find((p) => execProtocols.includes(p));
    if (chosen === undefined) {
      reject(socket, 403, `unable to upgrade: requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${execProtocols.join(' ')}]`, {}, 'text/plain; charset=utf-8');
      return;
    }
    this.#accept(req, socket, head, chosen, (ws) => void serveExecSession(ws, chosen, execReq, containerHandler));
  }

  #accept(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, serve: (ws: import('ws').WebSocket) => void): void {
    // The protocol was chosen already. `ws` refuses subprotocols that are not RFC 7230 tokens
    // (`SPDY/3.1+portforward.k8s.io` has a '/'), so the offer is taken off the request and the
    // answer written into the response headers here.
    delete req.headers['sec-websocket-protocol'];
    const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    wss.once('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${protocol}`));
    wss.handleUpgrade(req, socket, head, (ws) => {
      serve(ws);
      wss.close();
    });
  }
}
