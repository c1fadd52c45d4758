/**
 * The dashboard on a server of its own, for `kubeloom apiserver --dashboard` (kubeloom): the page and
 * the objects summary, read from the API server through `rest` (its loopback config). There is no
 * Manager here, so the page shows objects and events only and says where controllers show.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RestClient } from '../rest/client.ts';
import { serveDashboard } from './serve.ts';

/** A running dashboard server. */
export interface DashboardServer {
  /** Its URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  /** Closes it. */
  stop(): Promise<void>;
}

/** Starts a dashboard server on `host:port` (port 0: any free port). */
export async function startDashboardServer(options: { rest: RestClient; host?: string; port?: number }): Promise<DashboardServer> {
  const server = createServer((req, res) => {
    serveDashboard(req, res, { rest: options.rest, mode: 'apiserver' }).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(err instanceof Error ? err.message : 'dashboard error');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${shown}:${a.port}/`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
