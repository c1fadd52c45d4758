/**
 * `kubeloom get <resource> [name] [-n NS | -A] [-l SELECTOR] [--field-selector S] [-w] [-o json|yaml|wide|name]
 * [--kubeconfig PATH] [--context NAME]`: lists objects like `kubectl get`, resolving the resource
 * through discovery (plural, singular, short name, kind or `resource.group`).
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import type { Command } from './commands.ts';
import { loadKubeConfig, namespaceOf, restConfigFrom } from '../clientcmd/index.ts';
import type { KubeList, KubeObject, Unstructured } from '../apimachinery/object.ts';
import type { ListOptions } from '../apimachinery/options.ts';
import { RestClient } from '../rest/client.ts';
import { buildGet, buildList, buildWatch, type ResourceLocation } from '../rest/request.ts';
import { completeListItems } from '../kubernetes/resource-client.ts';
import { DiscoveryClient } from '../discovery/discovery-client.ts';
import { RestMapper, type RestMapping } from '../discovery/rest-mapper.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { isTable, TablePrinter, tableAccept, type Table } from './table-printer.ts';

export { formatTable, humanDuration } from './table-printer.ts';

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
  /** Receives the output. */
  stdout: (text: string) => void;
  /** Receives warnings and errors. */
  stderr: (text: string) => void;
  /** Environment for kubeconfig loading (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Ends a `--watch` (default: SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Ages in the client-side fallback are measured on it (default: the real clock). */
  clock?: Clock;
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
  const watch = values.watch === true;
  let rest: RestClient | undefined;
  try {
    const loadOptions: Parameters<typeof loadKubeConfig>[0] = {};
    if (values.kubeconfig !== undefined) loadOptions.path = values.kubeconfig;
    if (values.context !== undefined) loadOptions.context = values.context;
    if (io.env !== undefined) loadOptions.env = io.env;
    const kubeconfig = await loadKubeConfig(loadOptions);
    const contextOpt = values.context !== undefined ? { context: values.context } : {};
    rest = new RestClient(await restConfigFrom(kubeconfig, contextOpt), { warningHandler: { handleWarning: (w) => io.stderr(`Warning: ${w.text}\n`) } });
    // (Discovery runs with its own burst: one request per group version without aggregated discovery.)
    const mapping = await new RestMapper(new DiscoveryClient(rest)).resourceFor({ resource: resourceArg });
    const allNamespaces = values['all-namespaces'] === true && nameArg === undefined;
    const namespace = mapping.namespaced && !allNamespaces ? (values.namespace ?? namespaceOf(kubeconfig, contextOpt)) : '';
    const location: ResourceLocation = { group: mapping.resource.group, version: mapping.resource.version, resource: mapping.resource.resource, namespace };
    const listOptions: ListOptions = {};
    if (values.selector !== undefined) listOptions.labelSelector = values.selector;
    if (values['field-selector'] !== undefined) listOptions.fieldSelector = values['field-selector'];
    if (nameArg !== undefined) listOptions.fieldSelector = [listOptions.fieldSelector, `metadata.name=${nameArg}`].filter((s) => s !== undefined).join(',');

    // Human-readable output asks the server for a Table (kubectl's Accept header); a server that
    // answers with plain objects gets the client-side columns.
    const human = output === '' || output === 'wide';
    const accept = human ? tableAccept : undefined;
    const printer = new TablePrinter({ pods: mapping.resource.group === '' && mapping.resource.resource === 'pods', wide: output === 'wide', withNamespace: allNamespaces, clock });
    const render = (body: Table | Unstructured | KubeList<Unstructured>, single: boolean): string => {
      if (isTable(body)) return printer.table(body);
      const list = body as KubeList<Unstructured>;
      const items = 'items' in list ? completeListItems(list, true).items : [body as Unstructured];
      if (human) return printer.objects(items);
      if (output === 'name') return items.map((o) => `${qualifiedName(mapping, o)}\n`).join('');
      const document = single ? items[0] : { apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } };
      return output === 'json' ? `${JSON.stringify(document, null, 4)}\n` : `${watch ? '---\n' : ''}${stringify(document)}`;
    };

    let resourceVersion = '';
    let text: string;
    if (nameArg !== undefined && !watch) {
      text = render(await rest.json<Table | Unstructured>(buildGet({ ...location, name: nameArg }, {}, accept !== undefined ? { accept } : {})), true);
    } else {
      const body = await rest.json<(Table & { metadata?: { resourceVersion?: string } }) | KubeList<Unstructured>>(buildList(location, listOptions, accept !== undefined ? { accept } : {}));
      resourceVersion = body.metadata?.resourceVersion ?? '';
      text = render(body, false);
    }
    if (human && text === '' && !watch) io.stderr(namespace !== '' ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
    io.stdout(text);
    if (!watch) return 0;

    const controller = new AbortController();
    const stop = (): void => controller.abort();
    io.signal?.addEventListener('abort', stop, { once: true });
    if (io.signal === undefined) {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
    try {
      const watchOptions: ListOptions = { ...listOptions, resourceVersion, allowWatchBookmarks: true };
      const events = await rest.watch<Table | Unstructured>(buildWatch(location, watchOptions, accept !== undefined ? { accept } : {}), { signal: controller.signal });
      for await (const e of events) {
        if (e.type === 'BOOKMARK') continue;
        if (e.type === 'ERROR') {
          io.stderr(`kubeloom get: watch error: ${e.object.message ?? e.object.reason ?? 'unknown'}\n`);
          return 1;
        }
        io.stdout(render(e.object, true));
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      io.signal?.removeEventListener('abort', stop);
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
  summary: "list objects of a resource in the server's table format, like kubectl get",
  async run(args: string[]): Promise<number> {
    return runGet(args, { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) });
  },
};
