/**
 * Server-side rendering for `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (what `kubectl get`
 * asks for) and for `as=PartialObjectMetadata[List]` (what metadata-only clients ask for).
 * The columns follow kube-apiserver's printers for the common resources; other resources get Name and Age.
 */
import type { ApiResource, PrinterColumn } from './resources.ts';
import type { StoredObject } from './storage.ts';

type Obj = Record<string, unknown>;

/** How much of each object a Table row carries (the `includeObject` parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
  cell: (o: Obj, now: number) => unknown;
}

function get(o: unknown, path: readonly (string | number)[]): unknown {
  let cur = o;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as Obj[]) : [];
}

function str(v: unknown, dflt = '<none>'): string {
  if (v === undefined || v === null || v === '') return dflt;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** duration.HumanDuration from apimachinery: how kubectl prints ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

const nameColumn: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (o) => get(o, ['metadata', 'name']) ?? '',
};

const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o, now) => {
    const ts = get(o, ['metadata', 'creationTimestamp']);
    return typeof ts === 'string' ? humanDuration(now - Date.parse(ts)) : '<unknown>';
  },
};

function col(name: string, type: string, cell: Column['cell'], priority = 0): Column {
  return { name, type, priority, description: name, cell };
}

function podStatus(o: Obj): string {
  if (get(o, ['metadata', 'deletionTimestamp']) !== undefined) return 'Terminating';
  const reason = get(o, ['status', 'reason']);
  if (typeof reason === 'string' && reason !== '') return reason;
  for (const cs of arr(get(o, ['status', 'containerStatuses']))) {
    const waiting = get(cs, ['state', 'waiting', 'reason']);
    if (typeof waiting === 'string' && waiting !== '') return waiting;
  }
  return str(get(o, ['status', 'phase']), 'Pending');
}

const columnsByResource: Record<string, Column[]> = {
  '/pods': [
    nameColumn,
    col('Ready', 'string', (o) => {
      const statuses = arr(get(o, ['status', 'containerStatuses']));
      return `${statuses.filter((c) => c.ready === true).length}/${arr(get(o, ['spec', 'containers'])).length}`;
    }),
    col('Status', 'string', podStatus),
    col('Restarts', 'string', (o) => String(arr(get(o, ['status', 'containerStatuses'])).reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0))),
    ageColumn,
    col('IP', 'string', (o) => str(get(o, ['status', 'podIP'])), 1),
    col('Node', 'string', (o) => str(get(o, ['spec', 'nodeName'])), 1),
    col('Nominated Node', 'string', (o) => str(get(o, ['status', 'nominatedNodeName'])), 1),
    col('Readiness Gates', 'string', (o) => str(arr(get(o, ['spec', 'readinessGates'])).length === 0 ? undefined : 'gates'), 1),
  ],
  'apps/deployments': [
    nameColumn,
    col('Ready', 'string', (o) => `${Number(get(o, ['status', 'readyReplicas']) ?? 0)}/${Number(get(o, ['spec', 'replicas']) ?? 1)}`),
    col('Up-to-date', 'integer', (o) => Number(get(o, ['status', 'updatedReplicas']) ?? 0)),
    col('Available', 'integer', (o) => Number(get(o, ['status', 'availableReplicas']) ?? 0)),
    ageColumn,
    col('Containers', 'string', (o) => arr(get(o, ['spec', 'template', 'spec', 'containers'])).map((c) => str(c.name)).join(','), 1),
    col('Images', 'string', (o) => arr(get(o, ['spec', 'template', 'spec', 'containers'])).map((c) => str(c.image)).join(','), 1),
  ],
  '/namespaces': [nameColumn, col('Status', 'string', (o) => str(get(o, ['status', 'phase']), 'Active')), ageColumn],
  '/configmaps': [nameColumn, col('Data', 'integer', (o) => Object.keys((get(o, ['data']) as Obj | undefined) ?? {}).length + Object.keys((get(o, ['binaryData']) as Obj | undefined) ?? {}).length), ageColumn],
  '/secrets': [
    nameColumn,
    col('Type', 'string', (o) => str(get(o, ['type']), 'Opaque')),
    col('Data', 'integer', (o) => Object.keys((get(o, ['data']) as Obj | undefined) ?? {}).length),
    ageColumn,
  ],
  '/services': [
    nameColumn,
    col('Type', 'string', (o) => str(get(o, ['spec', 'type']), 'ClusterIP')),
    col('Cluster-IP', 'string', (o) => str(get(o, ['spec', 'clusterIP']))),
    col('External-IP', 'string', (o) => str((get(o, ['spec', 'externalIPs']) as string[] | undefined)?.join(','))),
    col('Port(s)', 'string', (o) => str(arr(get(o, ['spec', 'ports'])).map((p) => `${str(p.port)}/${str(p.protocol, 'TCP')}`).join(','))),
    ageColumn,
  ],
  '/nodes': [nameColumn, col('Status', 'string', () => 'Unknown'), ageColumn],
  'coordination.k8s.io/leases': [nameColumn, col('Holder', 'string', (o) => str(get(o, ['spec', 'holderIdentity']), '')), ageColumn],
};

// A small JSONPath subset for CRD printer columns: .a.b, .a[0].b
function jsonPathCell(path: string): Column['cell'] {
  const parts: (string | number)[] = [];
  for (const m of path.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) parts.push(m[1] ?? Number(m[2]));
  return (o) => {
    const v = get(o, parts);
    return v === undefined ? null : v;
  };
}

function columnsFor(r: ApiResource): Column[] {
  if (r.custom && r.printerColumns.length > 0) {
    return [
      nameColumn,
      ...r.printerColumns.map((c: PrinterColumn): Column => {
        const cell = c.type === 'date' ? ageColumn.cell : jsonPathCell(c.jsonPath);
        return { name: c.name, type: c.type === 'date' ? 'string' : c.type, priority: c.priority ?? 0, description: c.description ?? '', cell, ...(c.format === undefined ? {} : { format: c.format }) };
      }),
    ];
  }
  return columnsByResource[`${r.group}/${r.resource}`] ?? [nameColumn, ageColumn];
}

/** metav1.PartialObjectMetadata for one object. */
export function partialMetadata(o: Obj): Obj {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/** Builds a meta.k8s.io/v1 Table for `objects`. `noHeaders` drops columnDefinitions (watch events after the first). */
export function toTable(r: ApiResource, objects: readonly StoredObject[], options: { includeObject: IncludeObject; noHeaders: boolean; now: number; listMeta: Obj }): Obj {
  const columns = columnsFor(r);
  const rows = objects.map((s) => {
    const row: Obj = { cells: columns.map((c) => c.cell(s.obj, options.now)) };
    if (options.includeObject === 'Object') row.object = s.obj;
    else if (options.includeObject === 'Metadata') row.object = partialMetadata(s.obj);
    return row;
  });
  const columnDefinitions = options.noHeaders
    ? null
    : columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: options.listMeta, columnDefinitions, rows };
}
