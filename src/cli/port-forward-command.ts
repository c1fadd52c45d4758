/**
 * `kubeloom port-forward [pod/]NAME [LOCAL:]REMOTE... [-n NS] [--address A] [--kubeconfig PATH]
 * [--context NAME]`: forwards local ports to a pod like `kubectl port-forward`, until interrupted or
 * until the connection to the pod is lost.
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { loadKubeConfig, namespaceOf, restConfigFrom } from '../clientcmd/index.ts';
import { RestClient } from '../rest/client.ts';
import { portForward, parsePortSpec } from '../tools/portforward/portforward.ts';

const usage = `usage: kubeloom port-forward [pod/]NAME [LOCAL_PORT:]REMOTE_PORT [...] [flags]

Forwards one or more local ports to a pod (over the API server's port-forward WebSocket tunnel).
  -n, --namespace NS        namespace (default: the context's namespace)
      --address A           local address to listen on, repeatable (default localhost: 127.0.0.1 and ::1)
      --kubeconfig PATH     kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
      --context NAME        kubeconfig context to use
`;

/** Where the command writes and what stops it; injectable for tests. */
export interface PortForwardIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Stops forwarding (default: SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/** Runs `kubeloom port-forward` with `args`; resolves with the exit code. */
export async function runPortForward(args: string[], io: PortForwardIo): Promise<number> {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: {
        namespace: { type: 'string', short: 'n' },
        address: { type: 'string', multiple: true },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    io.stderr(`kubeloom port-forward: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(usage);
    return 0;
  }
  const [target, ...portArgs] = positionals;
  if (target === undefined || portArgs.length === 0) {
    io.stderr(`kubeloom port-forward: ${target === undefined ? 'a pod is required' : 'at least 1 PORT is required for port-forward'}\n${usage}`);
    return 2;
  }
  const slash = target.indexOf('/');
  const kind = slash < 0 ? 'pod' : target.slice(0, slash).toLowerCase();
  const pod = slash < 0 ? target : target.slice(slash + 1);
  if (!['pod', 'pods', 'po'].includes(kind) || pod === '') {
    io.stderr(`kubeloom port-forward: only pods can be forwarded to ("${target}")\n`);
    return 2;
  }
  try {
    portArgs.forEach((p) => parsePortSpec(p));
  } catch (err) {
    io.stderr(`kubeloom port-forward: ${(err as Error).message}\n`);
    return 2;
  }
  let rest: RestClient | undefined;
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  if (io.signal !== undefined) io.signal.addEventListener('abort', stop, { once: true });
  else {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  try {
    const loadOptions: Parameters<typeof loadKubeConfig>[0] = {};
    if (values.kubeconfig !== undefined) loadOptions.path = values.kubeconfig;
    if (values.context !== undefined) loadOptions.context = values.context;
    if (io.env !== undefined) loadOptions.env = io.env;
    const kubeconfig = await loadKubeConfig(loadOptions);
    const contextOpt = values.context !== undefined ? { context: values.context } : {};
    rest = new RestClient(await restConfigFrom(kubeconfig, contextOpt), { warningHandler: { handleWarning: (w) => io.stderr(`Warning: ${w.text}\n`) } });
    const namespace = values.namespace ?? namespaceOf(kubeconfig, contextOpt);
    const pf = portForward(rest, {
      namespace,
      pod,
      ports: portArgs,
      ...(values.address === undefined ? {} : { addresses: values.address }),
      signal: controller.signal,
      onError: (err) => io.stderr(`E ${err.message}\n`),
    });
    const ports = await pf.ready;
    for (const p of ports) io.stdout(`Forwarding from ${(values.address ?? ['localhost']).join(',')}:${p.local} -> ${p.remote}\n`);
    await pf.done;
    return 0;
  } catch (err) {
    if (controller.signal.aborted) return 0;
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await rest?.close();
  }
}

/** The `port-forward` subcommand. */
export const portForwardCommand: Command = {
  summary: 'forward local ports to a pod, like kubectl port-forward',
  async run(args: string[]): Promise<number> {
    return runPortForward(args, { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) });
  },
};
