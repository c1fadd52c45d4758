/**
 * `kubeloom get <resource> [name] [-n NS | -A] [-l SELECTOR] [--field-selector S] [-w] [-o json|yaml|wide|name]
 * [--kubeconfig PATH] [--context NAME]`: lists objects like `kubectl get`, resolving the resource
 * through discovery (plural, singular, short name, kind or `resource.group`).
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import type { Pod } from '../api/core/v1.ts';
import type { Command } from './commands.ts';
import { loadKubeConfig, namespaceOf, restConfigFrom } from '../clientcmd/index.ts';
import type { KubeObject, Unstructured } from '../apimachinery/object.ts';
import type { ListOptions } from '../apimachinery/options.ts';
import { RestClient } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { DiscoveryClient } from '../discovery/discovery-client.ts';
import { RestMapper, type RestMapping } from '../discovery/rest-mapper.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

const usage = `usage: kubeloom get <resource> [name] [flags]

Lists objects of a resource (plural, singular, short name or kind; qualify with .group if ambiguous).
  -n, --namespace NS        namespace (default: the context's namespace)
  -A, --all-namespaces      list across all namespaces
  -l, --selector S          label selector, e.g. app=web,tier!=db
      --field-selector S    field selector, e.g. status.phase=Running
  -w, --watch               after listing, print changes as they happen
  -o, --output FORMAT       json, yaml, wide or name (default: a table)
      --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME        kubeconfig context to use
`;

/** Where `get` writes and how it is stopped (injectable for tests). */
export interface GetIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Ends a `--watch` (default: SIGINT/SIGTERM). */
  signal?: AbortSignal;
  clock?: Clock;
}

/**
 * Formats an age like kubectl (duration.HumanDuration): `45s`, `3m20s`, `15m`, `5h10m`, `30h`, `4d3h`,
 * `120d`, `3y20d`, `9y`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(obj: KubeObject, clock: Clock): string {
  const created = obj.metadata?.creationTimestamp;
  if (created === undefined) return '<unknown>';
  return humanDuration(clock.now() - Date.parse(created));
}

/** The READY, STATUS and RESTARTS columns of a pod, simplified from kubectl's pod printer. */
function podColumns(pod: Pod): [string, string, string] {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = pod.spec?.containers.length ?? statuses.length;
  const ready = statuses.filter((c) => c.ready).length;
  const restarts = statuses.reduce((n, c) => n + c.restartCount, 0);
  let status = pod.status?.reason ?? pod.status?.phase ?? 'Pending';
  for (const c of statuses) {
    const reason = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    if (reason !== undefined && reason !== '') status = reason;
  }
  if (pod.metadata?.deletionTimestamp !== undefined) status = 'Terminating';
  return [`${ready}/${total}`, status, String(restarts)];
}

interface TableOptions {
  pods: boolean;
  wide: boolean;
  allNamespaces: boolean;
  clock: Clock;
}

function header(o: TableOptions): string[] {
  const cols = o.allNamespaces ? ['NAMESPACE', 'NAME'] : ['NAME'];
  if (o.pods) cols.push('READY', 'STATUS', 'RESTARTS');
  cols.push('AGE');
  if (o.pods && o.wide) cols.push('IP', 'NODE');
  return cols;
}

function row(obj: Unstructured, o: TableOptions): string[] {
  const cols = o.allNamespaces ? [obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''] : [obj.metadata?.name ?? ''];
  const pod = obj as Pod;
  if (o.pods) cols.push(...podColumns(pod));
  cols.push(age(obj, o.clock));
  if (o.pods && o.wide) cols.push(pod.status?.podIP ?? '<none>', pod.spec?.nodeName ?? '<none>');
  return cols;
}

/** Aligns rows into columns separated by three spaces, as kubectl's tabwriter does. */
export function formatTable(rows: string[][], widths?: number[]): { text: string; widths: number[] } {
  const w = widths ?? [];
  for (const r of rows) r.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
  const text = rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]!))).join('   ')).join('\n');
  return { text: text === '' ? '' : `${text}\n`, widths: w };
}

function qualifiedName(mapping: RestMapping, obj: KubeObject): string {
  const kind = mapping.groupVersionKind.kind.toLowerCase();
  return `${mapping.resource.group === '' ? kind : `${kind}.${mapping.resource.group}`}/${obj.metadata?.name ?? ''}`;
}

/** Runs `get` with `args`; resolves to the exit code. */
export async function runGet(args: string[], io: GetIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        namespace: { type: 'string', short: 'n' },
        'all-namespaces': { type: 'boolean', short: 'A' },
        selector: { type: 'string', short: 'l' },
        'field-selector': { type: 'string' },
        watch: { type: 'boolean', short: 'w' },
        output: { type: 'string', short: 'o' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (err) {
    io.stderr(`kubeloom get: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(usage);
    return 0;
  }
  const [resourceArg, nameArg, ...extra] = positionals;
  const output = values.output ?? '';
  if (resourceArg === undefined || extra.length > 0 || !['', 'json', 'yaml', 'wide', 'name'].includes(output)) {
    io.stderr(`kubeloom get: ${resourceArg === undefined ? 'a resource type is required' : extra.length > 0 ? `unexpected arguments: ${extra.join(' ')}` : `unknown output format "${output}"`}\n${usage}`);
    return 2;
  }
  const clock = io.clock ?? realClock;
  let rest: RestClient | undefined;
  try {
    const loadOptions: Parameters<typeof loadKubeConfig>[0] = {};
    if (values.kubeconfig !== undefined) loadOptions.path = values.kubeconfig;
    if (values.context !== undefined) loadOptions.context = values.context;
    if (io.env !== undefined) loadOptions.env = io.env;
    const kubeconfig = await loadKubeConfig(loadOptions);
    const contextOpt = values.context !== undefined ? { context: values.context } : {};
    rest = new RestClient(await restConfigFrom(kubeconfig, contextOpt), { warningHandler: { handleWarning: (w) => io.stderr(`Warning: ${w.text}\n`) } });
    const mapping = await new RestMapper(new DiscoveryClient(rest)).resourceFor({ resource: resourceArg });
    const allNamespaces = values['all-namespaces'] === true && nameArg === undefined;
    const namespace = mapping.namespaced && !allNamespaces ? (values.namespace ?? namespaceOf(kubeconfig, contextOpt)) : '';
    const client = new ResourceClient<Unstructured>(rest, { ...mapping.resource, kind: mapping.groupVersionKind.kind, namespaced: mapping.namespaced, namespace });
    const listOptions: ListOptions = {};
    if (values.selector !== undefined) listOptions.labelSelector = values.selector;
    if (values['field-selector'] !== undefined) listOptions.fieldSelector = values['field-selector'];
    if (nameArg !== undefined) listOptions.fieldSelector = [listOptions.fieldSelector, `metadata.name=${nameArg}`].filter((s) => s !== undefined).join(',');

    const table: TableOptions = { pods: mapping.resource.group === '' && mapping.resource.resource === 'pods', wide: output === 'wide', allNamespaces, clock };
    let items: Unstructured[];
    let resourceVersion = '';
    if (nameArg !== undefined && values.watch !== true) {
      items = [await client.get(nameArg)];
    } else {
      const list = await client.list(listOptions);
      items = list.items;
      resourceVersion = list.metadata?.resourceVersion ?? '';
    }
    let widths: number[] | undefined;
    const print = (objs: Unstructured[], withHeader: boolean): void => {
      if (output === 'json') io.stdout(`${JSON.stringify(objs.length === 1 && nameArg !== undefined ? objs[0] : { apiVersion: 'v1', kind: 'List', items: objs, metadata: { resourceVersion: '' } }, null, 4)}\n`);
      else if (output === 'yaml') io.stdout(stringify(objs.length === 1 && nameArg !== undefined ? objs[0] : { apiVersion: 'v1', kind: 'List', items: objs, metadata: { resourceVersion: '' } }));
      else if (output === 'name') io.stdout(objs.map((o) => `${qualifiedName(mapping, o)}\n`).join(''));
      else {
        const rows = objs.map((o) => row(o, table));
        const formatted = formatTable(withHeader ? [header(table), ...rows] : rows, widths);
        widths = formatted.widths;
        io.stdout(formatted.text);
      }
    };
    if (items.length === 0 && output === '' && values.watch !== true) {
      io.stderr(namespace !== '' ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
    } else {
      print(items, true);
    }
    if (values.watch !== true) return 0;

    const controller = new AbortController();
    const stop = (): void => controller.abort();
    io.signal?.addEventListener('abort', stop, { once: true });
    if (io.signal === undefined) {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
    try {
      const w = await client.watch({ ...listOptions, resourceVersion, allowWatchBookmarks: true, signal: controller.signal });
      for await (const e of w) {
        if (e.type === 'BOOKMARK') continue;
        if (e.type === 'ERROR') {
          io.stderr(`kubeloom get: watch error: ${e.object.message ?? e.object.reason ?? 'unknown'}\n`);
          return 1;
        }
        print([e.object], widths === undefined && output === '');
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return 0;
  } catch (err) {
    io.stderr(`kubeloom get: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await rest?.close();
  }
}

/** The `get` subcommand. */
export const getCommand: Command = {
  summary: 'list objects of a resource, like kubectl get',
  async run(args: string[]): Promise<number> {
    return runGet(args, { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) });
  },
};
