/**
 * `kubeloom controller-manager [--kubeconfig PATH] [--context NAME] [--controllers LIST]
 * [--kube-api-qps N] [--kube-api-burst N] [--feature-gates A=true,B=false]`: runs kubeloom's workload controllers (kubeloom/controllers)
 * against any cluster until SIGINT/SIGTERM, as `kube-controller-manager --kubeconfig` would (without
 * leader election: run one).
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { loadKubeConfig, restConfigFrom } from '../clientcmd/index.ts';
import { parseControllersFlag, startControllers } from '../controllers/controller-manager.ts';
import { parseControllerFeatureGates, type ControllerFeatureGates } from '../controllers/feature-gates.ts';

const usage = `usage: kubeloom controller-manager [--kubeconfig PATH] [--context NAME] [--controllers LIST]
                                   [--kube-api-qps N] [--kube-api-burst N] [--feature-gates A=true,...]

Runs kube-controller-manager's workload controllers, as kubeloom implements them, against a cluster.
  --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME        kubeconfig context to use
  --controllers LIST    kube-controller-manager's syntax: '*' (default), 'name', '-name', comma-separated
  --kube-api-qps N      client-side requests per second (default 20, as kube-controller-manager)
  --kube-api-burst N    client-side burst (default 30, as kube-controller-manager)
  --feature-gates LIST  MaxUnavailableStatefulSet (default false), StatefulSetAutoDeletePVC (default true)
`;

/** The `controller-manager` subcommand. */
export const controllerManagerCommand: Command = {
  summary: "run kube-controller-manager's workload controllers (kubeloom's) against a cluster",
  async run(args: string[]): Promise<number> {
    let values;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          kubeconfig: { type: 'string' },
          context: { type: 'string' },
          controllers: { type: 'string' },
          'kube-api-qps': { type: 'string' },
          'kube-api-burst': { type: 'string' },
          'feature-gates': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      }));
    } catch (err) {
      process.stderr.write(`kubeloom controller-manager: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
      return 2;
    }
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    let controllers: string[];
    try {
      controllers = parseControllersFlag(values.controllers ?? '*');
    } catch (err) {
      process.stderr.write(`kubeloom controller-manager: --controllers: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    let featureGates: ControllerFeatureGates;
    try {
      featureGates = parseControllerFeatureGates(values['feature-gates'] ?? '');
    } catch (err) {
      process.stderr.write(`kubeloom controller-manager: --feature-gates: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    const qps = Number(values['kube-api-qps'] ?? 20);
    const burst = Number(values['kube-api-burst'] ?? 30);
    if (!Number.isFinite(qps) || !Number.isInteger(burst) || burst < 0) {
      process.stderr.write('kubeloom controller-manager: --kube-api-qps and --kube-api-burst take numbers\n');
      return 2;
    }
    const kubeconfig = await loadKubeConfig(values.kubeconfig === undefined ? {} : { path: values.kubeconfig });
    const config = await restConfigFrom(kubeconfig, values.context === undefined ? {} : { context: values.context });
    const running = startControllers({ ...config, qps, burst, userAgent: 'kube-controller-manager' }, { controllers, featureGates });
    process.stdout.write(`kubeloom controller-manager running ${running.names.join(', ')} against ${config.host}\n`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    process.stdout.write(`kubeloom controller-manager: ${signal}, stopping\n`);
    await running.stop();
    return 0;
  },
};
