/**
 * The dashboard's HTTP side (kubeloom; no upstream counterpart, the Kubernetes Dashboard is a separate
 * product): the page itself and `/dashboard/api/objects`, a summary of the cluster's objects and events
 * read through a REST client. The controllers' part of the page comes from `/debug/controllers` and
 * `/debug/reconciles`, which the Manager's dashboard server also serves (src/manager/introspection.ts);
 * the API server's dashboard has no controllers of a Manager and says so.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestClient } from '../rest/client.ts';
import { dashboardHtml } from './page.ts';

/** Where the dashboard is served from. */
export interface DashboardContext {
  /** Reads the cluster's objects. */
  readonly rest: RestClient;
  /** `manager`: a Manager's dev-mode server (controllers shown); `apiserver`: `kubeloom apiserver --dashboard`. */
  readonly mode: 'manager' | 'apiserver';
}

/** The collections the page shows, in order: [title, API path]. */
export const dashboardCollections: ReadonlyArray<readonly [string, string]> = [
  ['Namespaces', '/api/v1/namespaces'],
  ['Deployments', '/apis/apps/v1/deployments'],
  ['ReplicaSets', '/apis/apps/v1/replicasets'],
  ['Pods', '/api/v1/pods'],
  ['Services', '/api/v1/services'],
  ['ConfigMaps', '/api/v1/configmaps'],
];

/** A row of the objects table. */
export interface ObjectRow {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly created: string;
  /** A short status: ready replicas, pod phase. */
  readonly status: string;
}

/** An event row. */
export interface EventRow {
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  readonly object: string;
  readonly message: string;
  readonly count: number;
}

/** A string or number field as text; anything else as ''. */
function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

interface Listed {
  items?: Array<Record<string, unknown>>;
}

function statusOf(title: string, o: Record<string, unknown>): string {
  const status = (o['status'] ?? {}) as Record<string, unknown>;
  const spec = (o['spec'] ?? {}) as Record<string, unknown>;
  if (title === 'Deployments' || title === 'ReplicaSets') return `${Number(status['readyReplicas'] ?? 0)}/${Number(spec['replicas'] ?? 1)} ready`;
  if (title === 'Pods') return str(status['phase']);
  if (title === 'Namespaces') return str(status['phase']);
  return '';
}

async function list(rest: RestClient, path: string, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
  try {
    const l = await rest.json<Listed>({ verb: 'GET', path, query: [], headers: {} }, { signal });
    return l.items ?? [];
  } catch {
    return [];
  }
}

/** The objects and the newest 100 events, as the page shows them. */
export async function dashboardObjects(rest: RestClient, signal: AbortSignal): Promise<{ collections: Array<{ title: string; items: ObjectRow[] }>; events: EventRow[] }> {
  const [events, newEvents, ...lists] = await Promise.all([
    list(rest, '/api/v1/events', signal),
    list(rest, '/apis/events.k8s.io/v1/events', signal),
    ...dashboardCollections.map(([, path]) => list(rest, path, signal)),
  ]);
  const collections = dashboardCollections.map(([title], i) => ({
    title,
    items: lists[i]!.map((o) => {
      const m = (o['metadata'] ?? {}) as Record<string, unknown>;
      return { namespace: str(m['namespace']), name: str(m['name']), resourceVersion: str(m['resourceVersion']), created: str(m['creationTimestamp']), status: statusOf(title, o) };
    }),
  }));
  const rows: EventRow[] = events.map((e) => {
    const inv = (e['involvedObject'] ?? {}) as Record<string, unknown>;
    const m = (e['metadata'] ?? {}) as Record<string, unknown>;
    return {
      time: str(e['lastTimestamp'] ?? e['eventTime'] ?? m['creationTimestamp']),
      type: str(e['type']),
      reason: str(e['reason']),
      object: `${str(inv['kind'])} ${inv['namespace'] !== undefined ? `${str(inv['namespace'])}/` : ''}${str(inv['name'])}`,
      message: str(e['message']),
      count: Number(e['count'] ?? 1),
    };
  });
  // events.k8s.io/v1 (what a Manager's recorders write), when the server keeps them apart from core/v1.
  const seen = new Set(events.map((e) => str(((e['metadata'] ?? {}) as Record<string, unknown>)['uid'])));
  for (const e of newEvents) {
    const m = (e['metadata'] ?? {}) as Record<string, unknown>;
    if (seen.has(str(m['uid'])) && str(m['uid']) !== '') continue;
    const reg = (e['regarding'] ?? {}) as Record<string, unknown>;
    const series = (e['series'] ?? {}) as Record<string, unknown>;
    rows.push({
      time: str(series['lastObservedTime'] ?? e['eventTime'] ?? m['creationTimestamp']),
      type: str(e['type']),
      reason: str(e['reason']),
      object: `${str(reg['kind'])} ${reg['namespace'] !== undefined ? `${str(reg['namespace'])}/` : ''}${str(reg['name'])}`,
      message: str(e['note']),
      count: Number(series['count'] ?? 1),
    });
  }
  rows.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
  return { collections, events: rows.slice(0, 100) };
}

/** Serves the page (`/`, `/dashboard`) and `/dashboard/api/objects`; 404 for anything else. */
export async function serveDashboard(req: IncomingMessage, res: ServerResponse, ctx: DashboardContext): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/' || path === '/dashboard' || path === '/dashboard/') {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(dashboardHtml(ctx.mode));
    return;
  }
  if (path === '/dashboard/api/objects') {
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const body = await dashboardObjects(ctx.rest, abort.signal);
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify(body));
    return;
  }
  res.statusCode = 404;
  res.end('404 page not found\n');
}
