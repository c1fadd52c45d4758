/**
 * Server-side rendering for `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (what `kubectl get`
 * asks for) and for `as=PartialObjectMetadata[List]` (what metadata-only clients ask for).
 * The columns follow kube-apiserver's printers for the common resources; other resources get Name and Age.
 */
import { findResults, JsonPathEvalError, JsonPathParseError, parseJsonPath, printResults, type JsonPathTemplate } from '../util/jsonpath/jsonpath.ts';
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

/**
 * formatHPAMetrics (pkg/printers/internalversion/printers.go): `current/target` per metric, the first
 * two only (then `+ N more...`); utilization targets as percentages, others as quantities.
 */
function hpaTargets(specs: readonly Obj[], statuses: readonly Obj[]): string {
  if (specs.length === 0) return '<none>';
  const q = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '0');
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    const source = (key: string): Obj => (isObj(spec[key]) ? spec[key] : {});
    const target = (key: string): Obj => (isObj(source(key).target) ? (source(key).target as Obj) : {});
    const current = (key: string): Obj | undefined => {
      const s = status?.[key];
      return isObj(s) ? (isObj(s.current) ? s.current : {}) : undefined;
    };
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : 'object';
        const c = current(key);
        if (target(key).averageValue !== undefined) return `${c?.averageValue === undefined ? '<unknown>' : q(c.averageValue)}/${q(target(key).averageValue)} (avg)`;
        return `${c === undefined ? '<unknown>' : q(c.value)}/${q(target(key).value)}`;
      }
      case 'Pods': {
        const c = current('pods');
        return `${c === undefined ? '<unknown>' : q(c.averageValue)}/${q(target('pods').averageValue)}`;
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const c = current(key);
        if (target(key).averageValue !== undefined) return `${c === undefined ? '<unknown>' : q(c.averageValue)}/${q(target(key).averageValue)}`;
        const cur = typeof c?.averageUtilization === 'number' ? `${c.averageUtilization}%` : '<unknown>';
        const util = target(key).averageUtilization;
        return `${cur}/${typeof util === 'number' ? `${util}%` : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  if (list.length <= 2) return list.join(', ');
  return `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...`;
}

/** extractCSRStatus (printers.go): Denied over Approved over Pending, then Failed and Issued. */
function csrCondition(o: unknown): string {
  const conditions = (get(o, ['status', 'conditions']) as unknown[] | undefined) ?? [];
  const types = new Set(conditions.map((c) => str(get(c, ['type']), '')));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(get(o, ['status', 'certificate']), '') !== '') status += ',Issued';
  return status;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function keys(v: unknown): number {
  return typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
}

/** translateTimestampSince: the age of a timestamp, `<unknown>` when unset. */
function since(ts: unknown, now: number): string {
  const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
function formatLabels(v: unknown): string {
  const entries = typeof v === 'object' && v !== null ? Object.entries(v as Obj) : [];
  if (entries.length === 0) return '<none>';
  return entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, x]) => `${k}=${str(x, '')}`)
    .join(',');
}

/** metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key; '' when empty. */
function selectorString(sel: unknown): string {
  const reqs: [string, string][] = [];
  for (const [k, v] of Object.entries((get(sel, ['matchLabels']) as Obj | undefined) ?? {})) reqs.push([k, `${k}=${str(v, '')}`]);
  for (const e of arr(get(sel, ['matchExpressions']))) {
    const key = str(e.key, '');
    const values = (Array.isArray(e.values) ? e.values.map((x) => str(x, '')) : []).sort().join(',');
    if (e.operator === 'In') reqs.push([key, `${key} in (${values})`]);
    else if (e.operator === 'NotIn') reqs.push([key, `${key} notin (${values})`]);
    else if (e.operator === 'Exists') reqs.push([key, key]);
    else if (e.operator === 'DoesNotExist') reqs.push([key, `!${key}`]);
  }
  return reqs
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty. */
function formatSelector(sel: unknown): string {
  const s = selectorString(sel);
  return s === '' ? '<none>' : s;
}

/** layoutContainerCells: container names and images of a pod template, comma-separated (`-o wide`). */
function containerCells(path: readonly string[]): Column[] {
  const containers = (x: Obj): Obj[] => arr(get(x, [...path, 'containers']));
  return [
    col('Containers', 'string', (x) => containers(x).map((c) => str(c.name, '')).join(','), 1),
    col('Images', 'string', (x) => containers(x).map((c) => str(c.image, '')).join(','), 1),
  ];
}

const templateContainers = containerCells(['spec', 'template', 'spec']);

/** printPod's STATUS: the phase or reason, overridden by init and container states, then Terminating. */
function podStatus(o: Obj): { reason: string; ready: number; total: number; restarts: number } {
  const phase = str(get(o, ['status', 'phase']), '');
  let reason = str(get(o, ['status', 'reason']), '') || phase;
  for (const c of arr(get(o, ['status', 'conditions']))) if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  const initSpecs = arr(get(o, ['spec', 'initContainers']));
  const restartable = new Set(initSpecs.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const total = arr(get(o, ['spec', 'containers'])).length + restartable.size;
  let ready = 0;
  let restarts = 0;
  let initializing = false;
  const inits = arr(get(o, ['status', 'initContainerStatuses']));
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    restarts += num(c.restartCount);
    const terminated = get(c, ['state', 'terminated']) as Obj | undefined;
    const waiting = str(get(c, ['state', 'waiting', 'reason']), '');
    if (terminated !== undefined && num(terminated.exitCode) === 0) continue;
    if (restartable.has(c.name) && c.started === true) {
      if (c.ready === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      const r = str(terminated.reason, '');
      reason = r !== '' ? `Init:${r}` : num(terminated.signal) !== 0 ? `Init:Signal:${num(terminated.signal)}` : `Init:ExitCode:${num(terminated.exitCode)}`;
    } else if (waiting !== '' && waiting !== 'PodInitializing') reason = `Init:${waiting}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }
  const initialized = arr(get(o, ['status', 'conditions'])).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = inits.filter((c) => restartable.has(c.name)).reduce((n, c) => n + num(c.restartCount), 0);
    let running = false;
    const statuses = arr(get(o, ['status', 'containerStatuses']));
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c.restartCount);
      const waiting = str(get(c, ['state', 'waiting', 'reason']), '');
      const terminated = get(c, ['state', 'terminated']) as Obj | undefined;
      if (waiting !== '') reason = waiting;
      else if (terminated !== undefined && str(terminated.reason, '') !== '') reason = str(terminated.reason);
      else if (terminated !== undefined) reason = num(terminated.signal) !== 0 ? `Signal:${num(terminated.signal)}` : `ExitCode:${num(terminated.exitCode)}`;
      else if (c.ready === true && get(c, ['state', 'running']) !== undefined) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) {
      reason = arr(get(o, ['status', 'conditions'])).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (get(o, ['metadata', 'deletionTimestamp']) !== undefined) {
    if (get(o, ['status', 'reason']) === 'NodeLost') reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  }
  return { reason, ready, total, restarts };
}

function serviceExternalIP(o: Obj): string {
  const external = (get(o, ['spec', 'externalIPs']) as unknown[] | undefined) ?? [];
  const joined = external.map((x) => str(x, '')).join(',');
  switch (get(o, ['spec', 'type'])) {
    case 'ClusterIP':
    case 'NodePort':
      return joined === '' ? '<none>' : joined;
    case 'LoadBalancer': {
      const lb = [...new Set(arr(get(o, ['status', 'loadBalancer', 'ingress'])).map((i) => str(i.ip, '') || str(i.hostname, '')).filter((x) => x !== ''))];
      const all = [...lb, ...external.map((x) => str(x, ''))];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(get(o, ['spec', 'externalName']), '');
    default:
      return '<unknown>';
  }
}

function servicePorts(o: Obj): string {
  const s = arr(get(o, ['spec', 'ports']))
    .map((p) => (num(p.nodePort) > 0 ? `${num(p.port)}:${num(p.nodePort)}/${str(p.protocol, '')}` : `${num(p.port)}/${str(p.protocol, '')}`))
    .join(',');
  return s === '' ? '<none>' : s;
}

function nodeAddress(o: Obj, type: string): string {
  return str(arr(get(o, ['status', 'addresses'])).find((a) => a.type === type)?.address);
}

/** Core events and events.k8s.io/v1 events print alike (one internal type upstream): map the latter's field names. */
function coreEvent(o: Obj): Obj {
  if (typeof get(o, ['apiVersion']) !== 'string' || !String(o.apiVersion).startsWith('events.k8s.io/')) return o;
  return {
    ...o,
    involvedObject: o.regarding,
    message: o.note,
    source: o.deprecatedSource,
    firstTimestamp: o.deprecatedFirstTimestamp,
    lastTimestamp: o.deprecatedLastTimestamp,
    count: o.deprecatedCount,
  };
}

function eventTimes(raw: Obj, now: number): { first: string; last: string; count: number } {
  const o = coreEvent(raw);
  const first = o.firstTimestamp !== undefined && o.firstTimestamp !== null ? since(o.firstTimestamp, now) : since(o.eventTime, now);
  let last = o.lastTimestamp !== undefined && o.lastTimestamp !== null ? since(o.lastTimestamp, now) : first;
  let count = num(o.count);
  if (isObj(o.series)) {
    last = since(o.series.lastObservedTime, now);
    count = num(o.series.count);
  } else if (count === 0) count = 1;
  return { first, last, count };
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const eventColumns: Column[] = [
  col('Last Seen', 'string', (o, now) => eventTimes(o, now).last),
  col('Type', 'string', (o) => str(coreEvent(o).type, '')),
  col('Reason', 'string', (o) => str(coreEvent(o).reason, '')),
  col('Object', 'string', (o) => {
    const e = coreEvent(o);
    const kind = str(get(e, ['involvedObject', 'kind']), '').toLowerCase();
    const name = str(get(e, ['involvedObject', 'name']), '');
    return name === '' ? kind : `${kind}/${name}`;
  }),
  col('Subobject', 'string', (o) => str(get(coreEvent(o), ['involvedObject', 'fieldPath']), ''), 1),
  col(
    'Source',
    'string',
    (o) => {
      const e = coreEvent(o);
      const component = str(get(e, ['source', 'component']), '') || str(e.reportingController, '');
      const instance = str(get(e, ['source', 'host']), '') || str(e.reportingInstance, '');
      return instance === '' ? component : `${component}, ${instance}`;
    },
    1,
  ),
  col('Message', 'string', (o) => str(coreEvent(o).message, '').trim()),
  col('First Seen', 'string', (o, now) => eventTimes(o, now).first, 1),
  col('Count', 'string', (o, now) => eventTimes(o, now).count, 1),
  { ...nameColumn, priority: 1 },
];

function bindingColumns(): Column[] {
  const subjects = (o: Obj, kind: string): string =>
    arr(get(o, ['subjects']))
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace, '')}/${str(s.name, '')}` : str(s.name, '')))
      .join(', ');
  return [
    nameColumn,
    col('Role', 'string', (o) => `${str(get(o, ['roleRef', 'kind']), '')}/${str(get(o, ['roleRef', 'name']), '')}`),
    ageColumn,
    col('Users', 'string', (o) => subjects(o, 'User'), 1),
    col('Groups', 'string', (o) => subjects(o, 'Group'), 1),
    col('ServiceAccounts', 'string', (o) => subjects(o, 'ServiceAccount'), 1),
  ];
}

const accessModeOrder = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const accessModeShort: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** listWithMoreString (printers.go): the first three values, then ` + N more...`; `<unset>` for none. */
function listWithMore(values: readonly string[]): string {
  const shown = values.slice(0, 3).join(',');
  if (values.length > 3) return `${shown} + ${values.length - 3} more...`;
  return shown === '' ? '<unset>' : shown;
}

// The columns of kube-apiserver's printers (pkg/printers/internalversion/printers.go), priority 1 = `-o wide`.
const columnsByResource: Record<string, Column[]> = {
  '/pods': [
    nameColumn,
    col('Ready', 'string', (o) => {
      const s = podStatus(o);
      return `${s.ready}/${s.total}`;
    }),
    col('Status', 'string', (o) => podStatus(o).reason),
    // Restarts show "N (age ago)" upstream when a container's last termination is known.
    col('Restarts', 'string', (o, now) => {
      const { restarts } = podStatus(o);
      let last = NaN;
      for (const c of [...arr(get(o, ['status', 'containerStatuses'])), ...arr(get(o, ['status', 'initContainerStatuses']))]) {
        const t = Date.parse(str(get(c, ['lastState', 'terminated', 'finishedAt']), ''));
        if (!Number.isNaN(t) && !(t <= last)) last = t;
      }
      return restarts !== 0 && !Number.isNaN(last) ? `${restarts} (${humanDuration(now - last)} ago)` : String(restarts);
    }),
    ageColumn,
    col('IP', 'string', (o) => str(get(o, ['status', 'podIPs', 0, 'ip']) ?? get(o, ['status', 'podIP'])), 1),
    col('Node', 'string', (o) => str(get(o, ['spec', 'nodeName'])), 1),
    col('Nominated Node', 'string', (o) => str(get(o, ['status', 'nominatedNodeName'])), 1),
    col(
      'Readiness Gates',
      'string',
      (o) => {
        const gates = arr(get(o, ['spec', 'readinessGates']));
        if (gates.length === 0) return '<none>';
        const conditions = arr(get(o, ['status', 'conditions']));
        const ok = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
        return `${ok}/${gates.length}`;
      },
      1,
    ),
  ],
  'autoscaling/horizontalpodautoscalers': [
    nameColumn,
    col('Reference', 'string', (o) => `${str(get(o, ['spec', 'scaleTargetRef', 'kind']), '')}/${str(get(o, ['spec', 'scaleTargetRef', 'name']), '')}`),
    col('Targets', 'string', (o) => hpaTargets(arr(get(o, ['spec', 'metrics'])), arr(get(o, ['status', 'currentMetrics'])))),
    col('MinPods', 'string', (o) => {
      const min = get(o, ['spec', 'minReplicas']);
      return typeof min === 'number' ? String(min) : '<unset>';
    }),
    col('MaxPods', 'string', (o) => num(get(o, ['spec', 'maxReplicas']))),
    col('Replicas', 'string', (o) => num(get(o, ['status', 'currentReplicas']))),
    ageColumn,
  ],
  'apps/deployments': [
    nameColumn,
    col('Ready', 'string', (o) => `${num(get(o, ['status', 'readyReplicas']))}/${num(get(o, ['spec', 'replicas']))}`),
    col('Up-to-date', 'string', (o) => num(get(o, ['status', 'updatedReplicas']))),
    col('Available', 'string', (o) => num(get(o, ['status', 'availableReplicas']))),
    ageColumn,
    ...templateContainers,
    col('Selector', 'string', (o) => selectorString(get(o, ['spec', 'selector'])), 1),
  ],
  'apps/replicasets': [
    nameColumn,
    col('Desired', 'integer', (o) => num(get(o, ['spec', 'replicas']))),
    col('Current', 'integer', (o) => num(get(o, ['status', 'replicas']))),
    col('Ready', 'integer', (o) => num(get(o, ['status', 'readyReplicas']))),
    ageColumn,
    ...templateContainers,
    col('Selector', 'string', (o) => formatSelector(get(o, ['spec', 'selector'])), 1),
  ],
  'apps/statefulsets': [nameColumn, col('Ready', 'string', (o) => `${num(get(o, ['status', 'readyReplicas']))}/${num(get(o, ['spec', 'replicas']))}`), ageColumn, ...templateContainers],
  'apps/daemonsets': [
    nameColumn,
    col('Desired', 'integer', (o) => num(get(o, ['status', 'desiredNumberScheduled']))),
    col('Current', 'integer', (o) => num(get(o, ['status', 'currentNumberScheduled']))),
    col('Ready', 'integer', (o) => num(get(o, ['status', 'numberReady']))),
    col('Up-to-date', 'integer', (o) => num(get(o, ['status', 'updatedNumberScheduled']))),
    col('Available', 'integer', (o) => num(get(o, ['status', 'numberAvailable']))),
    col('Node Selector', 'string', (o) => formatLabels(get(o, ['spec', 'template', 'spec', 'nodeSelector']))),
    ageColumn,
    ...templateContainers,
    col('Selector', 'string', (o) => formatSelector(get(o, ['spec', 'selector'])), 1),
  ],
  'batch/jobs': [
    nameColumn,
    col('Status', 'string', (o) => {
      const has = (type: string): boolean => arr(get(o, ['status', 'conditions'])).find((c) => c.type === type)?.status === 'True';
      if (has('Complete')) return 'Complete';
      if (has('Failed')) return 'Failed';
      if (get(o, ['metadata', 'deletionTimestamp']) !== undefined) return 'Terminating';
      if (has('Suspended')) return 'Suspended';
      if (has('FailureTarget')) return 'FailureTarget';
      return 'Running';
    }),
    col('Completions', 'string', (o) => {
      const succeeded = num(get(o, ['status', 'succeeded']));
      const completions = get(o, ['spec', 'completions']);
      if (typeof completions === 'number') return `${succeeded}/${completions}`;
      const parallelism = num(get(o, ['spec', 'parallelism']));
      return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    }),
    col('Duration', 'string', (o, now) => {
      const start = Date.parse(str(get(o, ['status', 'startTime']), ''));
      if (Number.isNaN(start)) return '';
      const done = Date.parse(str(get(o, ['status', 'completionTime']), ''));
      return humanDuration((Number.isNaN(done) ? now : done) - start);
    }),
    ageColumn,
    ...templateContainers,
    col('Selector', 'string', (o) => formatSelector(get(o, ['spec', 'selector'])), 1),
  ],
  // printCronJob (v1.32: with the TIMEZONE column).
  'batch/cronjobs': [
    nameColumn,
    col('Schedule', 'string', (o) => str(get(o, ['spec', 'schedule']), '')),
    col('Timezone', 'string', (o) => str(get(o, ['spec', 'timeZone']))),
    col('Suspend', 'boolean', (o) => {
      const v = get(o, ['spec', 'suspend']);
      return typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>';
    }),
    col('Active', 'integer', (o) => arr(get(o, ['status', 'active'])).length),
    col('Last Schedule', 'string', (o, now) => {
      const ts = get(o, ['status', 'lastScheduleTime']);
      return ts === undefined || ts === null ? '<none>' : since(ts, now);
    }),
    ageColumn,
    ...containerCells(['spec', 'jobTemplate', 'spec', 'template', 'spec']),
    col('Selector', 'string', (o) => formatSelector(get(o, ['spec', 'jobTemplate', 'spec', 'selector'])), 1),
  ],
  '/namespaces': [nameColumn, col('Status', 'string', (o) => str(get(o, ['status', 'phase']), '')), ageColumn],
  '/configmaps': [nameColumn, col('Data', 'string', (o) => keys(get(o, ['data'])) + keys(get(o, ['binaryData']))), ageColumn],
  '/secrets': [nameColumn, col('Type', 'string', (o) => str(get(o, ['type']), '')), col('Data', 'string', (o) => keys(get(o, ['data']))), ageColumn],
  '/serviceaccounts': [nameColumn, col('Secrets', 'string', (o) => arr(get(o, ['secrets'])).length), ageColumn],
  '/services': [
    nameColumn,
    col('Type', 'string', (o) => str(get(o, ['spec', 'type']), '')),
    col('Cluster-IP', 'string', (o) => str(get(o, ['spec', 'clusterIPs', 0]))),
    col('External-IP', 'string', serviceExternalIP),
    col('Port(s)', 'string', servicePorts),
    ageColumn,
    col('Selector', 'string', (o) => formatLabels(get(o, ['spec', 'selector'])), 1),
  ],
  '/endpoints': [
    nameColumn,
    col('Endpoints', 'string', (o) => {
      const subsets = arr(get(o, ['subsets']));
      if (subsets.length === 0) return '<none>';
      const list: string[] = [];
      let count = 0;
      for (const ss of subsets) {
        const addrs = arr(ss.addresses);
        const ports = arr(ss.ports);
        if (ports.length === 0) {
          count += addrs.length;
          for (const a of addrs) list.push(str(a.ip, ''));
          continue;
        }
        for (const p of ports) {
          count += addrs.length;
          for (const a of addrs) {
            const ip = str(a.ip, '');
            list.push(`${ip.includes(':') ? `[${ip}]` : ip}:${num(p.port)}`);
          }
        }
      }
      return count > 3 ? `${list.slice(0, 3).join(',')} + ${count - 3} more...` : list.join(',');
    }),
    ageColumn,
  ],
  '/nodes': [
    nameColumn,
    col('Status', 'string', (o) => {
      const ready = arr(get(o, ['status', 'conditions'])).find((c) => c.type === 'Ready');
      const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
      if (get(o, ['spec', 'unschedulable']) === true) status.push('SchedulingDisabled');
      return status.join(',');
    }),
    col('Roles', 'string', (o) => {
      const roles = new Set<string>();
      for (const [k, v] of Object.entries((get(o, ['metadata', 'labels']) as Obj | undefined) ?? {})) {
        if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
        else if (k === 'kubernetes.io/role' && v !== '') roles.add(str(v, ''));
      }
      return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
    }),
    ageColumn,
    col('Version', 'string', (o) => str(get(o, ['status', 'nodeInfo', 'kubeletVersion']), '')),
    col('Internal-IP', 'string', (o) => nodeAddress(o, 'InternalIP'), 1),
    col('External-IP', 'string', (o) => nodeAddress(o, 'ExternalIP'), 1),
    col('OS-Image', 'string', (o) => str(get(o, ['status', 'nodeInfo', 'osImage']), '<unknown>'), 1),
    col('Kernel-Version', 'string', (o) => str(get(o, ['status', 'nodeInfo', 'kernelVersion']), '<unknown>'), 1),
    col('Container-Runtime', 'string', (o) => str(get(o, ['status', 'nodeInfo', 'containerRuntimeVersion']), '<unknown>'), 1),
  ],
  '/events': eventColumns,
  'events.k8s.io/events': eventColumns,
  '/persistentvolumeclaims': [
    nameColumn,
    col('Status', 'string', (o) => (get(o, ['metadata', 'deletionTimestamp']) !== undefined ? 'Terminating' : str(get(o, ['status', 'phase']), ''))),
    col('Volume', 'string', (o) => str(get(o, ['spec', 'volumeName']), '')),
    col('Capacity', 'string', (o) => (str(get(o, ['spec', 'volumeName']), '') === '' ? '' : str(get(o, ['status', 'capacity', 'storage']), ''))),
    col('Access Modes', 'string', (o) => {
      if (str(get(o, ['spec', 'volumeName']), '') === '') return '';
      const modes = new Set(((get(o, ['status', 'accessModes']) as unknown[] | undefined) ?? []).map((m) => str(m, '')));
      return accessModeOrder.filter((m) => modes.has(m)).map((m) => accessModeShort[m]).join(',');
    }),
    col('StorageClass', 'string', (o) => str(get(o, ['spec', 'storageClassName']) ?? get(o, ['metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class']), '')),
    col('VolumeAttributesClass', 'string', (o) => str(get(o, ['spec', 'volumeAttributesClassName']), '<unset>')),
    ageColumn,
    col('VolumeMode', 'string', (o) => str(get(o, ['spec', 'volumeMode']), '<unset>'), 1),
  ],
  'certificates.k8s.io/certificatesigningrequests': [
    nameColumn,
    ageColumn,
    col('SignerName', 'string', (o) => str(get(o, ['spec', 'signerName']), '<none>')),
    col('Requestor', 'string', (o) => str(get(o, ['spec', 'username']), '')),
    col('RequestedDuration', 'string', (o) => {
      const seconds = get(o, ['spec', 'expirationSeconds']);
      return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
    }),
    col('Condition', 'string', (o) => csrCondition(o)),
  ],
  'coordination.k8s.io/leases': [nameColumn, col('Holder', 'string', (o) => str(get(o, ['spec', 'holderIdentity']), '')), ageColumn],
  'rbac.authorization.k8s.io/rolebindings': bindingColumns(),
  'rbac.authorization.k8s.io/clusterrolebindings': bindingColumns(),
  '/componentstatuses': [
    nameColumn,
    col('Status', 'string', (o) => {
      const c = arr(get(o, ['conditions'])).find((x) => x.type === 'Healthy');
      return c === undefined ? 'Unknown' : c.status === 'True' ? 'Healthy' : 'Unhealthy';
    }),
    col('Message', 'string', (o) => str(arr(get(o, ['conditions'])).find((x) => x.type === 'Healthy')?.message, '')),
    col('Error', 'string', (o) => str(arr(get(o, ['conditions'])).find((x) => x.type === 'Healthy')?.error, '')),
  ],
  'storage.k8s.io/storageclasses': [
    {
      ...nameColumn,
      // IsDefaultAnnotation (pkg/apis/storage/util): the default class is marked after its name.
      cell: (o) => {
        const ann = get(o, ['metadata', 'annotations']);
        const isDefault = isObj(ann) && (ann['storageclass.kubernetes.io/is-default-class'] === 'true' || ann['storageclass.beta.kubernetes.io/is-default-class'] === 'true');
        return `${str(get(o, ['metadata', 'name']), '')}${isDefault ? ' (default)' : ''}`;
      },
    },
    col('Provisioner', 'string', (o) => str(get(o, ['provisioner']), '')),
    col('ReclaimPolicy', 'string', (o) => str(get(o, ['reclaimPolicy']), 'Delete')),
    col('VolumeBindingMode', 'string', (o) => str(get(o, ['volumeBindingMode']), 'Immediate')),
    col('AllowVolumeExpansion', 'string', (o) => get(o, ['allowVolumeExpansion']) === true),
    ageColumn,
  ],
  'storage.k8s.io/csidrivers': [
    nameColumn,
    col('AttachRequired', 'boolean', (o) => get(o, ['spec', 'attachRequired']) !== false),
    col('PodInfoOnMount', 'boolean', (o) => get(o, ['spec', 'podInfoOnMount']) === true),
    col('StorageCapacity', 'boolean', (o) => get(o, ['spec', 'storageCapacity']) === true),
    col('TokenRequests', 'string', (o) => {
      const audiences = arr(get(o, ['spec', 'tokenRequests'])).map((t) => str(t.audience, ''));
      return audiences.length === 0 ? '<unset>' : audiences.join(',');
    }),
    col('RequiresRepublish', 'boolean', (o) => get(o, ['spec', 'requiresRepublish']) === true),
    col('Modes', 'string', (o) => {
      const modes = ((get(o, ['spec', 'volumeLifecycleModes']) as unknown[] | undefined) ?? []).map((m) => str(m, ''));
      return modes.length === 0 ? '<none>' : modes.join(',');
    }),
    ageColumn,
  ],
  'storage.k8s.io/csinodes': [nameColumn, col('Drivers', 'integer', (o) => arr(get(o, ['spec', 'drivers'])).length), ageColumn],
  'storage.k8s.io/csistoragecapacities': [
    nameColumn,
    col('StorageClassName', 'string', (o) => str(get(o, ['storageClassName']), '')),
    col('Capacity', 'string', (o) => str(get(o, ['capacity']), '<unset>')),
  ],
  'storage.k8s.io/volumeattachments': [
    nameColumn,
    { ...col('Attacher', 'string', (o) => str(get(o, ['spec', 'attacher']), '')), format: 'name' },
    col('PV', 'string', (o) => str(get(o, ['spec', 'source', 'persistentVolumeName']), '')),
    col('Node', 'string', (o) => str(get(o, ['spec', 'nodeName']), '')),
    col('Attached', 'boolean', (o) => get(o, ['status', 'attached']) === true),
    ageColumn,
  ],
  'discovery.k8s.io/endpointslices': [
    nameColumn,
    col('AddressType', 'string', (o) => str(get(o, ['addressType']), '')),
    col('Ports', 'string', (o) => listWithMore(arr(get(o, ['ports'])).map((p) => (typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*')))),
    col('Endpoints', 'string', (o) => listWithMore(arr(get(o, ['endpoints'])).flatMap((e) => ((e.addresses as unknown[] | undefined) ?? []).map((a) => str(a, ''))))),
    ageColumn,
  ],
  'node.k8s.io/runtimeclasses': [nameColumn, col('Handler', 'string', (o) => str(get(o, ['handler']), '')), ageColumn],
  'flowcontrol.apiserver.k8s.io/flowschemas': [
    nameColumn,
    col('PriorityLevel', 'string', (o) => str(get(o, ['spec', 'priorityLevelConfiguration', 'name']), '')),
    col('MatchingPrecedence', 'string', (o) => num(get(o, ['spec', 'matchingPrecedence']))),
    col('DistinguisherMethod', 'string', (o) => str(get(o, ['spec', 'distinguisherMethod', 'type']), '<none>')),
    ageColumn,
    col('MissingPL', 'string', (o) => str(arr(get(o, ['status', 'conditions'])).find((c) => c.type === 'Dangling')?.status, '?')),
  ],
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': [
    nameColumn,
    col('Type', 'string', (o) => str(get(o, ['spec', 'type']), '')),
    col('NominalConcurrencyShares', 'string', (o) => get(o, ['spec', 'limited', 'nominalConcurrencyShares']) ?? '<none>'),
    col('Queues', 'string', (o) => get(o, ['spec', 'limited', 'limitResponse', 'queuing', 'queues']) ?? '<none>'),
    col('HandSize', 'string', (o) => get(o, ['spec', 'limited', 'limitResponse', 'queuing', 'handSize']) ?? '<none>'),
    col('QueueLengthLimit', 'string', (o) => get(o, ['spec', 'limited', 'limitResponse', 'queuing', 'queueLengthLimit']) ?? '<none>'),
    ageColumn,
  ],
  'admissionregistration.k8s.io/validatingadmissionpolicies': [
    nameColumn,
    col('Validations', 'integer', (o) => arr(get(o, ['spec', 'validations'])).length),
    col('ParamKind', 'string', (o) => {
      const kind = get(o, ['spec', 'paramKind']);
      return isObj(kind) ? `${str(kind.apiVersion, '')}/${str(kind.kind, '')}` : '<unset>';
    }),
    ageColumn,
  ],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': [
    nameColumn,
    col('PolicyName', 'string', (o) => str(get(o, ['spec', 'policyName']), '')),
    col('ParamRef', 'string', (o) => {
      const ref = get(o, ['spec', 'paramRef']);
      if (!isObj(ref)) return '<unset>';
      const name = str(ref.name, '');
      if (name !== '') return str(ref.namespace, '') !== '' ? `${str(ref.namespace, '')}/${name}` : `*/${name}`;
      return isObj(ref.selector) ? selectorString(ref.selector) : '<unset>';
    }),
    ageColumn,
  ],
  // kube-aggregator's own table (pkg/registry/apiservice/etcd/etcd.go ConvertToTable).
  'apiregistration.k8s.io/apiservices': [
    nameColumn,
    col('Service', 'string', (o) => {
      const svc = get(o, ['spec', 'service']);
      return isObj(svc) ? `${str(svc.namespace, '')}/${str(svc.name, '')}` : 'Local';
    }),
    col('Available', 'string', (o) => {
      const c = arr(get(o, ['status', 'conditions'])).find((x) => x.type === 'Available');
      if (c === undefined) return 'Unknown';
      if (c.status === 'True' || str(c.reason, '') === '') return str(c.status, '');
      return `${str(c.status, '')} (${str(c.reason, '')})`;
    }),
    ageColumn,
  ],
};

// rest.NewDefaultTableConvertor: resources without a printer (roles, clusterroles, CRDs) show Name and Created At.
const defaultColumns: Column[] = [
  nameColumn,
  {
    name: 'Created At',
    type: 'date',
    description: ageColumn.description,
    cell: (o) => {
      const ts = get(o, ['metadata', 'creationTimestamp']);
      return typeof ts === 'string' ? ts : '';
    },
  },
];

/**
 * The value of a CRD printer column (apiextensions-apiserver pkg/registry/customresource/tableconvertor):
 * the column's parsed path (a client-go JSONPath template `{<jsonPath>}`) with missing keys allowed, and
 * the first value it finds; `none` when it finds nothing or fails (a comparison of incompatible types, an
 * index out of bounds).
 */
function jsonPathValue(tpl: JsonPathTemplate): (o: Obj) => { found: boolean; value: unknown } {
  return (o) => {
    try {
      const first = findResults(tpl, o, { allowMissingKeys: true })[0] ?? [];
      return first.length === 0 ? { found: false, value: undefined } : { found: true, value: first[0] };
    } catch (err) {
      if (err instanceof JsonPathEvalError) return { found: false, value: undefined };
      throw err;
    }
  };
}

/** cellForJSONValue of the CRD table convertor: typed values, `date` as an age, anything else null. */
function crCell(type: string, tpl: JsonPathTemplate): Column['cell'] {
  const value = jsonPathValue(tpl);
  return (o, now) => {
    const found = value(o);
    if (!found.found) return null;
    const v = found.value;
    // String columns print the value as the template would (JSON for maps and lists, Go's %v else, <no value> for null).
    if (type === 'string') return printResults([v]);
    if (v === null || v === undefined) return null;
    switch (type) {
      case 'integer':
        return typeof v === 'number' ? Math.trunc(v) : null;
      case 'number':
        return typeof v === 'number' ? v : null;
      case 'boolean':
        return typeof v === 'boolean' ? v : null;
      case 'date': {
        if (typeof v !== 'string') return null;
        const t = Date.parse(v);
        return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
      }
      default:
        return null;
    }
  };
}

// serveDefaultColumnsIfEmpty: a CRD version without printer columns shows Age.
const defaultCrColumns: readonly PrinterColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: ageColumn.description }];

function columnsFor(r: ApiResource): Column[] {
  if (r.custom) {
    const columns = r.printerColumns.length > 0 ? r.printerColumns : defaultCrColumns;
    const out: Column[] = [nameColumn];
    for (const c of columns) {
      let tpl: JsonPathTemplate;
      try {
        tpl = parseJsonPath(`{${c.jsonPath}}`);
      } catch (err) {
        // tableconvertor.New stops at the first path that does not parse and returns the columns built so
        // far, which the CRD handler serves ("falling back to default printing" in its log): that column
        // and every later one are left out (checked against v1.24).
        if (err instanceof JsonPathParseError) break;
        throw err;
      }
      out.push({
        name: c.name,
        type: c.type,
        priority: c.priority ?? 0,
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        cell: crCell(c.type, tpl),
        ...(c.format === undefined ? {} : { format: c.format }),
      });
    }
    return out;
  }
  return columnsByResource[`${r.group}/${r.resource}`] ?? defaultColumns;
}

/** printPod's row conditions: finished pods are marked Completed (kubectl uses them to tell finished rows apart). */
function podRowConditions(o: Obj): Obj[] | undefined {
  const phase = get(o, ['status', 'phase']);
  if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
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
    const conditions = r.group === '' && r.resource === 'pods' ? podRowConditions(s.obj) : undefined;
    if (conditions !== undefined) row.conditions = conditions;
    if (options.includeObject === 'Object') row.object = s.obj;
    else if (options.includeObject === 'Metadata') row.object = partialMetadata(s.obj);
    // A RawExtension without an object encodes as null.
    else row.object = null;
    return row;
  });
  const columnDefinitions = options.noHeaders
    ? null
    : columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: options.listMeta, columnDefinitions, rows };
}
