/**
 * `kubeloom demo [--kubeconfig PATH] [--context NAME] [--in-cluster] [--serve] [--metrics-port N]
 * [--podsets N] [--replicas N] [--namespace NS] [--workers N]`: runs the PodSet demo controller (see
 * src/demo/demo.ts).
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';

const usage = `usage: kubeloom demo [--kubeconfig PATH | --context NAME | --in-cluster] [--serve] [--metrics-port N] [--podsets N] [--replicas N] [--namespace NS] [--workers N]

Runs the PodSet controller (CRD podsets.demo.kubeloom.dev).
By default it starts the embedded API server (in memory, on loopback), installs the CRD, drives a
workload against the controller, prints a summary and exits 0 once every step converged (1
otherwise). KUBECONFIG and ~/.kube/config are not used unless asked for: with --kubeconfig, --context
or --in-cluster it prints the cluster it writes to, then runs the controller there until Ctrl-C.
  --kubeconfig PATH   run against the current context of this kubeconfig file
  --context NAME      run against this context (of --kubeconfig, else KUBECONFIG, else ~/.kube/config)
  --in-cluster        run against the cluster of this pod's service account (deploy/deployment.yaml)
  --serve             embedded mode: keep running after the workload until Ctrl-C
  --metrics-port N    port of /metrics, /healthz, /readyz (default 0 = any free port; 8080 in a cluster)
  --podsets N         PodSets the workload creates (default 3)
  --replicas N        initial replicas per PodSet (default 3)
  --namespace NS      in a cluster: namespace to manage (default all; with --in-cluster, the pod's own)
  --workers N         concurrent reconciles (default 5)
`;

function int(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`invalid --${name} ${JSON.stringify(value)}: want an integer in [${min}, ${max}]`);
  return n;
}

/** The `demo` subcommand. */
export const demoCommand: Command = {
  summary: 'run the PodSet demo controller on the embedded API server (on a cluster only with --kubeconfig, --context or --in-cluster)',
  async run(args: string[]): Promise<number> {
    let values;
    let numbers: { metricsPort?: number | undefined; podSets?: number | undefined; replicas?: number | undefined; workers?: number | undefined };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          kubeconfig: { type: 'string' },
          context: { type: 'string' },
          'in-cluster': { type: 'boolean' },
          serve: { type: 'boolean' },
          'metrics-port': { type: 'string' },
          podsets: { type: 'string' },
          replicas: { type: 'string' },
          namespace: { type: 'string' },
          workers: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      }));
      numbers = {
        metricsPort: int('metrics-port', values['metrics-port'], 0, 65535),
        podSets: int('podsets', values.podsets, 1, 100),
        replicas: int('replicas', values.replicas, 0, 100),
        workers: int('workers', values.workers, 1, 64),
      };
    } catch (err) {
      process.stderr.write(`kubeloom demo: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
      return 2;
    }
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    if (values['in-cluster'] === true && (values.kubeconfig !== undefined || values.context !== undefined)) {
      process.stderr.write(`kubeloom demo: --in-cluster cannot be combined with --kubeconfig or --context\n${usage}`);
      return 2;
    }
    const { runDemo } = await import('../demo/demo.ts');
    const stop = new AbortController();
    const onSignal = (): void => stop.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      return await runDemo({
        ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context !== undefined ? { context: values.context } : {}),
        inCluster: values['in-cluster'] === true,
        ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
        serve: values.serve === true,
        ...(numbers.metricsPort !== undefined ? { metricsPort: numbers.metricsPort } : {}),
        ...(numbers.podSets !== undefined ? { podSets: numbers.podSets } : {}),
        ...(numbers.replicas !== undefined ? { replicas: numbers.replicas } : {}),
        ...(numbers.workers !== undefined ? { workers: numbers.workers } : {}),
        signal: stop.signal,
      });
    } catch (err) {
      process.stderr.write(`kubeloom demo: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
