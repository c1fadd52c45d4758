/**
 * The demo's workload driver (embedded mode): it plays the user and the chaos around the controller —
 * creates PodSets, scales them, deletes pods behind the controller's back, drops in an orphan to be
 * adopted and relabels a pod to be released, deletes PodSets — and after each step waits (bounded)
 * until the world has converged, confirming it with live LISTs.
 */
import type { Namespace, Pod } from '../api/core/v1.ts';
import { isAlreadyExists } from '../apimachinery/errors.ts';
import { keyOf } from '../apimachinery/meta.ts';
import { PatchType } from '../apimachinery/options.ts';
import type { RestClient } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { customResourceClient } from '../kubernetes/clientset.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { Clock } from '../util/clock/clock.ts';
import { checkConvergence, type ConvergenceResult } from './convergence.ts';
import type { DemoRuntime } from './runtime.ts';
import { podSetApiVersion, podSetKind, podSetResourceSpec, type PodSet } from './podset.ts';

/** One step's outcome. */
export interface StepResult {
  name: string;
  converged: boolean;
  /** From the end of the step's writes to confirmed convergence (or the timeout). */
  convergenceMs: number;
  /** Why it did not converge ('' when it did). */
  reason: string;
}

/** Options of {@link runWorkload}. */
export interface WorkloadOptions {
  rest: RestClient;
  runtime: DemoRuntime;
  clock: Clock;
  namespace: string;
  podSets: number;
  replicas: number;
  /** Bound on each step's wait (default 30 s). */
  stepTimeoutMs?: number;
  /** Called when a step starts and ends. */
  onStep?: (event: { phase: 'start' | 'end'; index: number; total: number; name: string; result?: StepResult }) => void;
  /** Called with the convergence state while waiting. */
  onWaiting?: (state: ConvergenceResult) => void;
  signal: AbortSignal;
}

/** The workload could not be driven (an API call failed). */
export class WorkloadError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_DEMO_WORKLOAD', message, options);
  }
}

function podSetObject(namespace: string, name: string, replicas: number): PodSet {
  return {
    apiVersion: podSetApiVersion,
    kind: podSetKind,
    metadata: { namespace, name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'demo' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
}

/** Runs the steps; resolves with their results (stops at the first step that does not converge). */
export async function runWorkload(options: WorkloadOptions): Promise<StepResult[]> {
  const { rest, runtime, clock, namespace, signal } = options;
  const stepTimeoutMs = options.stepTimeoutMs ?? 30_000;
  const podSets = customResourceClient(rest, podSetResourceSpec, namespace);
  const pods = new ResourceClient<Pod>(rest, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace });
  const namespaces = new ResourceClient<Namespace>(rest, { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false });
  try {
    await namespaces.create({ metadata: { name: namespace } }, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw new WorkloadError(`creating namespace ${namespace}`, { cause: err });
  }

  const names = Array.from({ length: options.podSets }, (_, i) => `web-${i + 1}`);
  const expected = new Map<string, number>();
  const scaleUp = options.replicas + 2;
  const first = names[0] ?? 'web-1';
  const ownedPods = (name: string): Pod[] =>
    runtime.podInformer
      .getIndexer()
      .byIndex('namespace', namespace)
      .filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller === true && r.name === name) === true);

  const steps: { name: string; act: () => Promise<void> }[] = [
    {
      name: `create ${names.length} PodSets × ${options.replicas} replicas`,
      act: async () => {
        for (const name of names) {
          await podSets.create(podSetObject(namespace, name, options.replicas), { signal });
          expected.set(keyOf(namespace, name), options.replicas);
        }
      },
    },
    {
      name: `scale every PodSet up to ${scaleUp}`,
      act: async () => {
        for (const name of names) {
          await podSets.patch(name, PatchType.Merge, { spec: { replicas: scaleUp } }, { signal });
          expected.set(keyOf(namespace, name), scaleUp);
        }
      },
    },
    {
      name: 'delete one pod of every PodSet behind the controller\'s back',
      act: async () => {
        for (const name of names) {
          const victim = ownedPods(name)[0];
          if (victim !== undefined) await pods.delete(victim.metadata?.name ?? '', { signal });
        }
      },
    },
    {
      name: `adopt an orphan pod and release a relabelled one (${first})`,
      act: async () => {
        // An orphan matching the selector: adopted, then one pod too many is deleted.
        await pods.create({ metadata: { name: `${first}-orphan`, namespace, labels: { app: first, tier: 'demo' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } }, { signal });
        // An owned pod relabelled out of the selector: released (kept, no longer owned), then replaced.
        const owned = ownedPods(first).find((p) => p.metadata?.name !== `${first}-orphan`);
        if (owned !== undefined) await pods.patch(owned.metadata?.name ?? '', PatchType.Merge, { metadata: { labels: { app: `${first}-released` } } }, { signal });
      },
    },
    {
      name: 'scale every PodSet down to 1',
      act: async () => {
        for (const name of names) {
          await podSets.patch(name, PatchType.Merge, { spec: { replicas: 1 } }, { signal });
          expected.set(keyOf(namespace, name), 1);
        }
      },
    },
    {
      name: 'delete every PodSet (the finalizer deletes their pods first)',
      act: async () => {
        for (const name of names) {
          await podSets.delete(name, { signal });
          expected.delete(keyOf(namespace, name));
        }
      },
    },
  ];

  const results: StepResult[] = [];
  for (const [i, step] of steps.entries()) {
    options.onStep?.({ phase: 'start', index: i + 1, total: steps.length, name: step.name });
    try {
      await step.act();
    } catch (err) {
      throw new WorkloadError(`step "${step.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const start = clock.now();
    const outcome = await waitForConvergence(options, podSets, pods, namespace, expected, stepTimeoutMs);
    const result: StepResult = { name: step.name, converged: outcome.converged, convergenceMs: clock.since(start), reason: outcome.reason };
    results.push(result);
    options.onStep?.({ phase: 'end', index: i + 1, total: steps.length, name: step.name, result });
    if (!result.converged) break;
  }
  return results;
}

async function waitForConvergence(
  options: WorkloadOptions,
  podSets: ResourceClient<PodSet>,
  pods: ResourceClient<Pod>,
  namespace: string,
  expected: ReadonlyMap<string, number>,
  timeoutMs: number,
): Promise<ConvergenceResult> {
  const { runtime, clock, signal } = options;
  const start = clock.now();
  let last: ConvergenceResult = { converged: false, reason: 'not checked yet', convergedPodSets: 0 };
  while (clock.since(start) < timeoutMs) {
    const cached = checkConvergence(
      runtime.podSetInformer.getIndexer().byIndex('namespace', namespace),
      runtime.podInformer.getIndexer().byIndex('namespace', namespace),
      expected,
    );
    last = cached;
    options.onWaiting?.(cached);
    if (cached.converged) {
      // The caches say so; the server must agree.
      const [liveSets, livePods] = await Promise.all([podSets.list({ signal }), pods.list({ signal })]);
      last = checkConvergence(liveSets.items, livePods.items, expected);
      if (last.converged) return last;
    }
    await clock.sleep(10, signal);
  }
  return { ...last, converged: false };
}
