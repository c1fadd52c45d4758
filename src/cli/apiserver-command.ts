/**
 * `kubeloom apiserver [--port N] [--host H] [--tls] [--token T] [--rbac] [--write-kubeconfig PATH]
 * [--pod-handlers MODULE] [--compaction-interval D] [--crds PATH]... [--controllers LIST] [--bare]
 * [--no-garbage-collector] [--no-namespace-controller] [--[no-]scheduler] [--[no-]kubelet]
 * [--kubelet-nodes A,B] [--nodes N] [--pod-pending-delay D] [--pod-ready-delay D] [--pod-complete-delay D]
 * [--pod-failure-probability P] [--seed N] [--pod-events] [--[no-]volumes] [--pod-logs] [--metrics] [--dashboard [--dashboard-port N]]`: runs the embedded Kubernetes API server until SIGINT/SIGTERM, printing its URL
 * once it is ready. By default it is a developer's cluster: the scheduler and kubelet stand-ins and every
 * controller kubeloom has run in it; `--bare` runs the API server with only the garbage collector and the
 * namespace controller (for envtest-style tests, or the real kube-controller-manager).
 */
import { readFileSync } from 'node:fs';
import type { EtcdTlsOptions } from '../apiserver/storage/etcd-client.ts';
import { startDashboardServer } from '../dashboard/standalone.ts';
import { RestClient } from '../rest/client.ts';
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { installCrds, loadPodHandlers, startApiServer, type PodHandlers } from '../testing/index.ts';
import { parseFeatureGates, type FeatureGates } from '../apiserver/sharding.ts';
import { isControllerEnabled, parseControllersFlag } from '../controllers/controller-manager.ts';
import { startPodExtras } from './apiserver-pod-extras.ts';
import type { FakeKubeletOptions } from '../apiserver/controllers/fake-kubelet.ts';
import type { PodStages } from '../apiserver/controllers/pod-stages.ts';

/** The help text of `kubeloom apiserver`. */
export const apiserverUsage = `usage: kubeloom apiserver [--port N] [--host H] [--tls] [--token T] [--rbac] [--write-kubeconfig PATH]
                          [--pod-handlers MODULE] [--compaction-interval D] [--crds PATH]... [--controllers LIST]
                          [--bare] [--no-garbage-collector] [--no-namespace-controller] [--[no-]scheduler]
                          [--[no-]kubelet] [--kubelet-nodes A,B] [--nodes N] [--pod-pending-delay D]
                          [--pod-ready-delay D] [--pod-complete-delay D] [--pod-failure-probability P]
                          [--seed N] [--pod-events] [--[no-]volumes] [--pod-logs] [--metrics]
                          [--feature-gates A=true,B=false] [--data-dir DIR] [--cert-dir DIR]
                          [--etcd-servers URL[,URL...] [--etcd-prefix P]] [--dashboard [--dashboard-port N]]

Runs an embedded Kubernetes API server on loopback until interrupted, its data in memory (lost when it
stops), with --data-dir in a SQLite database that survives restarts and crashes, or with --etcd-servers
in etcd, in kube-apiserver's layout (shared with other servers on the same etcd). By default
it is a developer's cluster: a scheduler and a kubelet stand-in and every controller of kube-controller-
manager that kubeloom implements run in it (garbagecollector, namespace, cronjob, daemonset, deployment,
disruption, endpoint, endpointslice, job, nodelifecycle, podgc, replicaset, resourcequota,
root-ca-cert-publisher, serviceaccount, statefulset, ttl-after-finished), so Deployments roll out and
Services get endpoints.
  --port N                   port to listen on (default 0: any free port)
  --host H                   address to listen on (default 127.0.0.1)
  --tls                      serve HTTPS with a self-signed certificate (its CA goes into the kubeconfig)
  --token T                  bearer token of the admin user (system:masters); without --rbac, every
                             request must then authenticate; implies --tls (kubectl sends a
                             kubeconfig's token only over https)
  --rbac                     authorize with RBAC (bootstrap roles, ServiceAccount tokens, impersonation,
                             reviews); the kubeconfig authenticates as admin (token made at start
                             unless --token); implies --tls
  --write-kubeconfig PATH    write a kubeconfig for the server to PATH (mode 0600)
  --cert-dir DIR             with TLS: keep the self-signed serving certificate and client CA in DIR
                             (made on the first start, reused after), as kube-apiserver's --cert-dir
  --data-dir DIR             keep the data in DIR/kubeloom.db (SQLite revision log, WAL; every write is
                             fsynced before it is acknowledged), and start from what DIR holds: same
                             objects, resourceVersions continuing; default: in memory, lost on exit
  --etcd-servers URLS        keep the data in etcd v3 (comma-separated client URLs, http(s)://), as
                             kube-apiserver's flag: its key layout and encoding (built-in kinds as
                             protobuf, custom resources as JSON), resourceVersion = etcd revision, so
                             kube-apiserver and other kubeloom servers on the same etcd serve one cluster
  --etcd-cafile F, --etcd-certfile F, --etcd-keyfile F
                             TLS for https:// etcd servers, as kube-apiserver's flags: the CA that
                             signed etcd's certificate, the client certificate and its key (PEM files)
  --etcd-prefix P            the key prefix in etcd (default /registry), as kube-apiserver's
  --pod-handlers MODULE      serve pods/exec, attach and portforward with the module's default export
                             (PodHandlers: see docs/remotecommand.md)
  --compaction-interval D    compact the watch history every D (e.g. 10s, 5m), as kube-apiserver's
                             --etcd-compaction-interval; default: never (old resourceVersions stay valid)
  --crds PATH                install the CRDs of a file or directory (YAML/JSON) and wait until they are
                             served; repeatable
  --controllers LIST         the controllers to run, in kube-controller-manager's syntax: '*' all (the
                             default), 'name' one, '-name' not that one (e.g. '*,-deployment'); names as
                             upstream (those kubeloom does not implement are accepted and not run)
  --bare                     only the API server, the garbage collector and the namespace controller (no
                             stand-ins, no workload controllers): what a cluster without kube-controller-
                             manager would do, e.g. to run the real one against it
  --no-garbage-collector     do not garbage-collect by ownerReferences (dependents of deleted owners stay)
  --no-namespace-controller  do not empty and remove deleted namespaces (they stay Terminating)
  --[no-]scheduler           bind pending pods to Ready nodes (a stand-in for kube-scheduler); default on
                             unless --bare
  --[no-]kubelet             register a node and run the pods bound to it: Running/Ready, restarts, Jobs'
                             pods Succeeded, deleted pods removed, node Lease renewed; default on unless --bare
  --kubelet-nodes A,B        the nodes the kubelet stand-in registers (default kubeloom-node)
  --nodes N                  kwok-style: register N nodes kwok-node-0 … kwok-node-<N-1> instead
  --pod-pending-delay D      how long a bound pod stays Pending before its containers run (default 0s)
  --pod-ready-delay D        how long a running pod takes to become Ready (default 0s)
  --pod-complete-delay D     how long a Job's pod runs before its containers exit (default 0s)
  --pod-failure-probability P  the probability (0 to 1) that a finishing pod fails (default 0)
  --seed N                   seed of the failure draw (default 1; a pod's fate depends on its name)
  --pod-events               write the pod events of the scheduler and kubelets (Scheduled, Pulling,
                             Pulled, Created, Started, Killing)
  --[no-]volumes             a default StorageClass "standard" and a provisioner that binds
                             PersistentVolumeClaims; default on unless --bare
  --pod-logs                 serve a log line per container of every running pod (kubectl logs)
  --metrics                  serve metrics.k8s.io (kubectl top): each running container uses what it
                             requests, refreshed every 15 s
  --dashboard                serve a web page with the cluster's objects and events (see docs/observability.md)
  --dashboard-port N         port of the dashboard (default 0: any free port; same host as the server)
  --feature-gates A=true     feature gates, as kube-apiserver's; known: ShardedListAndWatch (KEP-5866
                             sharded list and watch, default false)
`;

/** A duration such as 500ms, 10s or 5m, in milliseconds; undefined when malformed or not positive. */
function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (m === null) return undefined;
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return ms > 0 ? ms : undefined;
}

/** The `apiserver` subcommand. */
export const apiserverCommand: Command = {
  summary: 'run the embedded Kubernetes API server on loopback (in memory, SQLite with --data-dir, or etcd with --etcd-servers), for kubectl and tests',
  async run(args: string[]): Promise<number> {
    let values;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          tls: { type: 'boolean' },
          token: { type: 'string' },
          rbac: { type: 'boolean' },
          'write-kubeconfig': { type: 'string' },
          'data-dir': { type: 'string' },
          'etcd-servers': { type: 'string' },
          'etcd-prefix': { type: 'string' },
          'etcd-cafile': { type: 'string' },
          'etcd-certfile': { type: 'string' },
          'etcd-keyfile': { type: 'string' },
          'cert-dir': { type: 'string' },
          'pod-handlers': { type: 'string' },
          'compaction-interval': { type: 'string' },
          crds: { type: 'string', multiple: true },
          'garbage-collector': { type: 'boolean' },
          'namespace-controller': { type: 'boolean' },
          scheduler: { type: 'boolean' },
          kubelet: { type: 'boolean' },
          'kubelet-nodes': { type: 'string' },
          nodes: { type: 'string' },
          'pod-pending-delay': { type: 'string' },
          'pod-ready-delay': { type: 'string' },
          'pod-complete-delay': { type: 'string' },
          'pod-failure-probability': { type: 'string' },
          seed: { type: 'string' },
          'pod-events': { type: 'boolean' },
          volumes: { type: 'boolean' },
          'feature-gates': { type: 'string' },
          controllers: { type: 'string' },
          bare: { type: 'boolean' },
          'pod-logs': { type: 'boolean' },
          metrics: { type: 'boolean' },
          dashboard: { type: 'boolean' },
          'dashboard-port': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowNegative: true,
      }));
    } catch (err) {
      process.stderr.write(`kubeloom apiserver: ${err instanceof Error ? err.message : String(err)}\n${apiserverUsage}`);
      return 2;
    }
    if (values.help === true) {
      process.stdout.write(apiserverUsage);
      return 0;
    }
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`kubeloom apiserver: invalid --port ${values.port}\n`);
      return 2;
    }
    const compaction = values['compaction-interval'];
    const compactionIntervalMs = compaction === undefined ? 0 : parseDuration(compaction);
    if (compactionIntervalMs === undefined) {
      process.stderr.write(`kubeloom apiserver: invalid --compaction-interval ${compaction}: want a duration such as 10s or 5m\n`);
      return 2;
    }
    const bare = values.bare === true;
    if (bare && values.controllers !== undefined) {
      process.stderr.write('kubeloom apiserver: --bare runs no workload controllers: leave out --controllers\n');
      return 2;
    }
    let selection: string[];
    try {
      selection = parseControllersFlag(values.controllers ?? '*');
    } catch (err) {
      process.stderr.write(`kubeloom apiserver: --controllers: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    const kubelet = values.kubelet ?? !bare;
    const nodes = values['kubelet-nodes']?.split(',').map((n) => n.trim());
    if (nodes !== undefined && (nodes.some((n) => n === '') || !kubelet)) {
      process.stderr.write(`kubeloom apiserver: --kubelet-nodes needs the kubelet stand-in and a comma-separated list of node names\n`);
      return 2;
    }
    const nodeCount = values.nodes === undefined ? undefined : Number(values.nodes);
    if (nodeCount !== undefined && (!Number.isInteger(nodeCount) || nodeCount < 1 || !kubelet || nodes !== undefined)) {
      process.stderr.write(`kubeloom apiserver: --nodes needs the kubelet stand-in, a positive whole number and no --kubelet-nodes\n`);
      return 2;
    }
    const stages: PodStages = {};
    for (const [flag, field] of [['pod-pending-delay', 'pendingMs'], ['pod-ready-delay', 'readyMs'], ['pod-complete-delay', 'completeMs']] as const) {
      const text = values[flag];
      if (text === undefined) continue;
      const ms = parseDuration(text);
      if (ms === undefined) {
        process.stderr.write(`kubeloom apiserver: invalid --${flag} ${text}: want a duration such as 500ms or 2s\n`);
        return 2;
      }
      stages[field] = ms;
    }
    if (values['pod-failure-probability'] !== undefined) {
      const p = Number(values['pod-failure-probability']);
      if (!(p >= 0 && p <= 1)) {
        process.stderr.write(`kubeloom apiserver: invalid --pod-failure-probability ${values['pod-failure-probability']}: want a number from 0 to 1\n`);
        return 2;
      }
      stages.failureProbability = p;
    }
    if (values.seed !== undefined) {
      const seed = Number(values.seed);
      if (!Number.isInteger(seed)) {
        process.stderr.write(`kubeloom apiserver: invalid --seed ${values.seed}: want a whole number\n`);
        return 2;
      }
      stages.seed = seed;
    }
    const kubeletOptions: FakeKubeletOptions = {
      ...(nodes === undefined ? {} : { nodes }),
      ...(nodeCount === undefined ? {} : { nodeCount }),
      ...(Object.keys(stages).length === 0 ? {} : { stages }),
    };
    let featureGates: FeatureGates | undefined;
    if (values['feature-gates'] !== undefined) {
      try {
        featureGates = parseFeatureGates(values['feature-gates']);
      } catch (err) {
        process.stderr.write(`kubeloom apiserver: --feature-gates: ${err instanceof Error ? err.message : String(err)}\n`);
        return 2;
      }
    }
    let podHandlers: PodHandlers | undefined;
    if (values['pod-handlers'] !== undefined) {
      try {
        podHandlers = await loadPodHandlers(values['pod-handlers']);
      } catch (err) {
        process.stderr.write(`kubeloom apiserver: --pod-handlers ${values['pod-handlers']}: ${err instanceof Error ? err.message : String(err)}\n`);
        return 2;
      }
    }
    const dataDir = values['data-dir'];
    // A busy address or a locked data directory: one line and exit 1 from the command runner.
    const etcdServers = values['etcd-servers']?.split(',').map((u) => u.trim()).filter((u) => u !== '');
    if (etcdServers !== undefined && dataDir !== undefined) {
      process.stderr.write('kubeloom apiserver: --etcd-servers and --data-dir cannot be combined\n');
      return 2;
    }
    let etcdTls: EtcdTlsOptions | undefined;
    try {
      etcdTls = etcdTlsFromFlags(values['etcd-cafile'], values['etcd-certfile'], values['etcd-keyfile']);
    } catch (err) {
      process.stderr.write(`kubeloom apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    const server = await startApiServer({
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(etcdServers === undefined ? {} : { etcdServers }),
      ...(values['etcd-prefix'] === undefined ? {} : { etcdPrefix: values['etcd-prefix'] }),
      ...(etcdTls === undefined ? {} : { etcdTls }),
      ...(values['cert-dir'] === undefined ? {} : { certDir: values['cert-dir'] }),
      ...(podHandlers === undefined ? {} : { podHandlers }),
      ...(featureGates === undefined ? {} : { featureGates }),
      port,
      compactionIntervalMs,
      ...(values.host === undefined ? {} : { host: values.host }),
      // A kubeconfig's token is sent only to an https server (clientcmd), so --token and --rbac imply --tls.
      tls: values.tls === true || values.token !== undefined || values.rbac === true,
      ...(values.token === undefined ? {} : { token: values.token }),
      rbac: values.rbac === true,
      controllers: {
        garbageCollector: values['garbage-collector'] !== false && (bare || isControllerEnabled('garbagecollector', selection)),
        namespace: values['namespace-controller'] !== false && (bare || isControllerEnabled('namespace', selection)),
        scheduler: values.scheduler ?? !bare,
        kubelet: kubelet ? (Object.keys(kubeletOptions).length === 0 ? true : kubeletOptions) : false,
        volumes: values.volumes ?? !bare,
        podEvents: values['pod-events'] === true,
        workloads: bare ? false : selection,
      },
    });
    if (values.crds !== undefined) {
      try {
        const installed = await installCrds(server, { paths: values.crds, errorIfPathMissing: true });
        process.stdout.write(`installed ${installed.length} CRD${installed.length === 1 ? '' : 's'}: ${installed.map((c) => c.metadata?.name ?? '').join(', ')}\n`);
      } catch (err) {
        process.stderr.write(`kubeloom apiserver: --crds: ${err instanceof Error ? err.message : String(err)}\n`);
        await server.stop();
        return 1;
      }
    }
    const stopExtras = values['pod-logs'] === true || values.metrics === true ? startPodExtras(server, { logs: values['pod-logs'] === true, metrics: values.metrics === true }) : undefined;
    const kubeconfigPath = values['write-kubeconfig'];
    if (kubeconfigPath !== undefined) await server.writeKubeconfig(kubeconfigPath);
    process.stdout.write(`kubeloom apiserver storage: ${server.storage.description}\n`);
    process.stdout.write(`kubeloom apiserver listening on ${server.url}\n`);
    const dashboard = values.dashboard === true ? await startDashboardServer({ rest: new RestClient(server.loopbackConfig()), ...(values.host !== undefined ? { host: values.host } : {}), port: Number(values['dashboard-port'] ?? 0) }) : undefined;
    if (dashboard !== undefined) process.stdout.write(`dashboard at ${dashboard.url}\n`);
    if (kubeconfigPath !== undefined) process.stdout.write(`kubeconfig written to ${kubeconfigPath}; try: KUBECONFIG=${kubeconfigPath} kubectl get namespaces\n`);
    else process.stdout.write('pass --write-kubeconfig PATH to get a kubeconfig for kubectl\n');
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    process.stdout.write(`kubeloom apiserver: ${signal}, stopping\n`);
    await stopExtras?.();
    await dashboard?.stop();
    await server.stop();
    return 0;
  },
};

/** Reads kube-apiserver's `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile` (undefined when none is given). */
export function etcdTlsFromFlags(caFile: string | undefined, certFile: string | undefined, keyFile: string | undefined): EtcdTlsOptions | undefined {
  if (caFile === undefined && certFile === undefined && keyFile === undefined) return undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error('--etcd-certfile and --etcd-keyfile go together');
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${flag} ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  };
  return {
    ...(caFile === undefined ? {} : { ca: read('--etcd-cafile', caFile) }),
    ...(certFile === undefined ? {} : { cert: read('--etcd-certfile', certFile) }),
    ...(keyFile === undefined ? {} : { key: read('--etcd-keyfile', keyFile) }),
  };
}
