/**
 * The demo's operational HTTP endpoints: /metrics (Prometheus text from prom-client), /healthz
 * (leader-election health: a leader stuck past its renew deadline fails it) and /readyz (the
 * informer caches have synced).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** Port (default 0: any free port). */
  port?: number;
  /** Address (default '127.0.0.1'; '0.0.0.0' in a cluster so the kubelet's probes reach it). */
  host?: string;
  /** Serves /metrics from here; without one /metrics answers 404 (prom-client is not installed). */
  registry?: PrometheusRegistry | undefined;
  /** Returns an error when the process is unhealthy. */
  healthz: () => Error | undefined;
  /** Returns true once the process is ready to serve. */
  readyz: () => boolean;
}

/** A running endpoint server. */
export interface MetricsServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts the /metrics, /healthz and /readyz server. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics' && options.registry === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are off: install prom-client to serve them\n');
    } else if (path === '/metrics' && options.registry !== undefined) {
      const body = await options.registry.metrics();
      res.writeHead(200, { 'content-type': options.registry.contentType }).end(body);
    } else if (path === '/healthz' || path === '/livez') {
      const err = options.healthz();
      if (err === undefined) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      else res.writeHead(500, { 'content-type': 'text/plain' }).end(`[-]leaderElection failed: ${err.message}\nhealthz check failed\n`);
    } else if (path === '/readyz') {
      if (options.readyz()) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'content-type': 'text/plain' }).end('[-]informer caches not synced\nreadyz check failed\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
