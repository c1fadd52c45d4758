// Two replicas of a leader-elected Manager (processes a and b, one Lease, the user's setup function of
// manager.sim.ts) under the simulator, each with its own clock offset and drift:
// - `leaderElectedPair`: crashes and restarts, delays, conflicts, but no pause: the elector's contract holds,
//   so the built-in `leaderOverlap` invariant (src/sim/leaders.ts) must never fire;
// - `leaderElectedPairPaused`: the same with the `pause` perturbation (up to 25 s, past the 15 s Lease): a
//   paused leader resumes after the other took over and finishes its reconcile (the classic split brain,
//   which the contract allows: the trace shows a SPLIT BRAIN line, the run goes on);
import { controllerManagedBy } from '../../src/builder/builder.ts';
import { newManager, type LeaderElectionOptions, type Manager } from '../../src/manager/manager.ts';
import { RestClient } from '../../src/rest/client.ts';
import { childCount, type SimHarness, type Simulation } from '../../src/sim/index.ts';
import { podSets, pods } from './kinds.ts';
import { reconcileFixed, setupFixed } from './manager.sim.ts';

// A replica as a Deployment runs it: a Manager that stops because it lost its Lease exits, and its
// container is started again (here: a new Manager one second later, on the process's clock).
function replica(identity: string, le: Partial<LeaderElectionOptions> = {}, setup: (mgr: Manager) => void = setupFixed): (h: SimHarness) => void {
  return (h) => {
    const run = (): void => {
      const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), {
        clock: h.clock,
        logger: h.logger,
        leaderElection: { id: 'sim-leader', namespace: 'default', identity, ...le },
      });
      setup(mgr);
      void mgr.start(h.signal).then(
        () => undefined,
        () => {
          if (!h.signal.aborted) void h.clock.sleep(1_000, h.signal).then(run, () => undefined);
        },
      );
    };
    run();
  };
}

const base: Omit<Simulation, 'name' | 'processes'> = {
  kinds: [podSets],
  clockSkew: { maxOffsetMs: 30_000, maxDrift: 0.01 },
  async scenario({ client, settle }) {
    await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
    await settle();
    await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 5 } });
    await settle();
  },
  invariants: [childCount('podsAtMostReplicas', podSets, pods, (s) => s.spec.replicas, 'atMost')],
  eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
};

/** Two leader-elected replicas, crashes but no pauses: never two leaders at once. */
export const leaderElectedPair: Simulation = {
  ...base,
  name: 'leader election: two replicas, crashes and clock skew',
  processes: [
    { name: 'a', start: replica('a') },
    { name: 'b', start: replica('b') },
  ],
};

/**
 * The same with pauses past the Lease (5% per response, up to 25 s) and a scenario that keeps scaling
 * while they happen: split brains happen, as the contract allows.
 */
export const leaderElectedPairPaused: Simulation = {
  ...leaderElectedPair,
  name: 'leader election: two replicas, pauses past the Lease',
  perturbations: { pause: 0.05 },
  limits: { maxPauseMs: 25_000 },
  async scenario({ client, settle, sleep }) {
    await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
    for (const replicas of [5, 7, 9]) {
      await sleep(10_000);
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas } });
    }
    await settle();
  },
};

// Planted bug: a controller that does not wait for leadership (needLeaderElection: false, as a
// Runnable that ignores the elector would): both replicas reconcile every PodSet, racing each other.
function setupUnelected(mgr: Manager): void {
  controllerManagedBy(mgr).for(podSets).owns(pods).withOptions({ needLeaderElection: false }).complete(reconcileFixed);
}

/** Two leader-elected replicas whose controller runs on both (the planted bug; `leaderElectedPair` is its fix). */
export const leaderElectedPairUnelected: Simulation = {
  ...leaderElectedPair,
  name: 'leader election: the controller does not wait for leadership',
  processes: [
    { name: 'a', start: replica('a', {}, setupUnelected) },
    { name: 'b', start: replica('b', {}, setupUnelected) },
  ],
};
