/**
 * `kubeloom demo [--kubeconfig PATH] [--serve] [--metrics-port N] [--podsets N] [--replicas N]
 * [--namespace NS] [--workers N]`: runs the PodSet demo controller (see src/demo/demo.ts).
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';

const usage = `usage: kubeloom demo [--kubeconfig PATH] [--serve] [--metrics-port N] [--podsets N] [--replicas N] [--namespace NS] [--workers N]

Runs the PodSet controller (CRD podsets.demo.kubeloom.dev).
Without a kubeconfig (--kubeconfig, KUBECONFIG, ~/.kube/config or in-cluster), it starts the
embedded API server, installs the CRD, drives a workload against the controller, prints a summary
and exits 0 once every step converged (1 otherwise). With a kubeconfig it runs the controller
against that cluster until Ctrl-C.
  --kubeconfig PATH   kubeconfig file to use
  --serve             embedded mode: keep running after the workload until Ctrl-C
  --metrics-port N    port of /metrics, /healthz, /readyz (default 0 = any free port; 8080 in a cluster)
  --podsets N         PodSets the workload creates (default 3)
  --replicas N        initial replicas per PodSet (default 3)
  --namespace NS      with a kubeconfig: namespace to manage (default all; in a cluster, the pod's own)
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
  summary: 'run the PodSet demo controller (embedded API server when no kubeconfig is found)',
  async run(args: string[]): Promise<number> {
    let values;
    let numbers: { metricsPort?: number | undefined; podSets?: number | undefined; replicas?: number | undefined; workers?: number | undefined };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          kubeconfig: { type: 'string' },
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
    const { runDemo } = await import('../demo/demo.ts');
    const stop = new AbortController();
    const onSignal = (): void => stop.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      return await runDemo({
        ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
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
