/**
 * `kubeloom cluster create|delete|list|start|stop [NAME]` and `kubeloom cluster snapshot save|restore SNAP
 * [--name NAME]`: named, persistent development clusters, as `kind create cluster` (src/cluster/named-clusters.ts).
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { NamedClusters, defaultClusterName, type ClusterStatus } from '../cluster/named-clusters.ts';
import { kubeconfigPath } from '../cluster/kubeconfig-context.ts';

const usage = `usage: kubeloom cluster create [NAME] [--port N]
       kubeloom cluster start|stop|delete [NAME]
       kubeloom cluster list
       kubeloom cluster snapshot save|restore SNAPSHOT [--name NAME]

Named development clusters that keep their data (default name: ${defaultClusterName}). Each runs
\`kubeloom apiserver\` in the background with TLS, an admin token and its data in SQLite, on a port chosen
at creation and kept; its context kubeloom-NAME is merged into $KUBECONFIG (its first file) or
~/.kube/config. Data lives under $XDG_DATA_HOME/kubeloom/clusters (default ~/.local/share/...).
  create [NAME]        create and start a cluster; its context becomes the current one
  start [NAME]         start a stopped cluster with its data (the context is refreshed)
  stop [NAME]          stop the cluster's server; the data stays
  delete [NAME]        stop it and remove its data and kubeconfig entries
  list                 every cluster: name, state, URL
  snapshot save S      save a copy of the cluster's data as S (while it runs, too)
  snapshot restore S   replace the cluster's data with snapshot S (restarting it if it runs)
  --port N             with create: the port to keep (default: a free one)
  --name NAME          with snapshot: the cluster (default ${defaultClusterName})
`;

function line(c: ClusterStatus): string {
  return `${c.name.padEnd(20)} ${(c.running ? 'running' : 'stopped').padEnd(8)} ${c.url}`;
}

/** The `cluster` subcommand. */
export const clusterCommand: Command = {
  summary: 'create, start, stop and snapshot named persistent dev clusters (like kind)',
  async run(args: string[]): Promise<number> {
    let values;
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({ args, options: { port: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
    } catch (err) {
      process.stderr.write(`kubeloom cluster: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
      return 2;
    }
    const [verb, ...rest] = positionals;
    if (values.help === true || verb === undefined) {
      process.stdout.write(usage);
      return verb === undefined && values.help !== true ? 2 : 0;
    }
    const clusters = new NamedClusters();
    const out = (text: string): void => void process.stdout.write(`${text}\n`);
    try {
      switch (verb) {
        case 'create': {
          const port = values.port === undefined ? undefined : Number(values.port);
          if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65535)) throw new Error(`invalid --port ${values.port}`);
          const c = await clusters.create(rest[0], port === undefined ? {} : { port });
          out(`cluster ${c.name} created at ${c.url}; context ${c.context} set in ${kubeconfigPath()}; try: kubectl get namespaces`);
          return 0;
        }
        case 'start': {
          const c = await clusters.start(rest[0]);
          out(`cluster ${c.name} running at ${c.url} (context ${c.context})`);
          return 0;
        }
        case 'stop':
          out((await clusters.stop(rest[0])) ? `cluster ${rest[0] ?? defaultClusterName} stopped` : `cluster ${rest[0] ?? defaultClusterName} was not running`);
          return 0;
        case 'delete':
          await clusters.delete(rest[0]);
          out(`cluster ${rest[0] ?? defaultClusterName} deleted`);
          return 0;
        case 'list': {
          const all = await clusters.list();
          if (all.length === 0) out('no clusters');
          for (const c of all) out(line(c));
          return 0;
        }
        case 'snapshot': {
          const [action, snapshot] = rest;
          const cluster = values.name ?? defaultClusterName;
          if (snapshot === undefined || (action !== 'save' && action !== 'restore')) throw new Error('want: snapshot save|restore SNAPSHOT');
          if (action === 'save') out(`snapshot ${snapshot} of cluster ${cluster} saved to ${await clusters.saveSnapshot(snapshot, cluster)}`);
          else {
            await clusters.restoreSnapshot(snapshot, cluster);
            out(`cluster ${cluster} restored from snapshot ${snapshot}`);
          }
          return 0;
        }
        default:
          process.stderr.write(`kubeloom cluster: unknown command ${JSON.stringify(verb)}\n${usage}`);
          return 2;
      }
    } catch (err) {
      process.stderr.write(`kubeloom cluster ${verb}: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  },
};
