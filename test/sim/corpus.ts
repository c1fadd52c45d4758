// The planted-bug corpus: each entry is a small controller with one classic mistake, and its fix.
import type { Simulation } from '../../src/sim/index.ts';
import { managerStaleCacheBuggy, managerStaleCacheFixed } from './manager.sim.ts';
import { finalizerOrderBuggy, finalizerOrderFixed } from './finalizer-order.sim.ts';
import { nonIdempotentBuggy, nonIdempotentFixed } from './non-idempotent-create.sim.ts';
import { readOwnWriteBuggy, readOwnWriteFixed } from './read-own-write.sim.ts';
import { requeueStormBuggy, requeueStormFixed } from './requeue-storm.sim.ts';
import { staleCacheBuggy, staleCacheFixed } from './stale-cache.sim.ts';
import { statusClobbersSpecBuggy, statusClobbersSpecFixed } from './status-clobbers-spec.sim.ts';
import { watchOrderBuggy, watchOrderFixed } from './watch-order.sim.ts';
import { lostUpdateBuggy, lostUpdateFixed } from './lost-update.sim.ts';
import { terminatingParentBuggy, terminatingParentFixed } from './terminating-parent.sim.ts';
import { orphanedChildBuggy, orphanedChildFixed } from './orphaned-child.sim.ts';
import { randomNameBuggy, randomNameFixed } from './random-name.sim.ts';
import { cacheMutationBuggy, cacheMutationFixed } from './cache-mutation.sim.ts';
import { missingWatchBuggy, missingWatchFixed } from './missing-watch.sim.ts';
import { leaderElectedPair, leaderElectedPairUnelected } from './leader-election.sim.ts';
import { requeueForeverBuggy, requeueForeverFixed } from './requeue-forever.sim.ts';

/** One planted bug. */
export interface Case {
  readonly bug: Simulation;
  readonly fix: Simulation;
  /** The invariant the bug breaks. */
  readonly invariant: string;
  /** Seeds the fix must pass in `npm test` when fewer than the default (a slow REST simulation); bench/sim.ts runs 1,000. */
  readonly fixSeeds?: number;
}

/** Every planted bug, its fix, and the invariant it breaks. */
export const corpus: Record<string, Case> = {
  'stale cache without expectations': { bug: staleCacheBuggy, fix: staleCacheFixed, invariant: 'podsAtMostReplicas' },
  'child created without idempotency': { bug: nonIdempotentBuggy, fix: nonIdempotentFixed, invariant: 'oneConfigMapPerSet' },
  'status update that clobbers spec': { bug: statusClobbersSpecBuggy, fix: statusClobbersSpecFixed, invariant: 'userSpecKept' },
  'finalizer removed before cleanup': { bug: finalizerOrderBuggy, fix: finalizerOrderFixed, invariant: 'noLeakedExternalResource' },
  'requeue storm': { bug: requeueStormBuggy, fix: requeueStormFixed, invariant: 'quiescence' },
  'assuming watch order across resources': { bug: watchOrderBuggy, fix: watchOrderFixed, invariant: 'everyPodKept' },
  'reading its own write through the cache': { bug: readOwnWriteBuggy, fix: readOwnWriteFixed, invariant: 'oneRunPerSet' },
  'stale cache, in a Manager built with the builder': { bug: managerStaleCacheBuggy, fix: managerStaleCacheFixed, invariant: 'podsAtMostReplicas' },
  'update instead of patch loses a concurrent change': { bug: lostUpdateBuggy, fix: lostUpdateFixed, invariant: 'userLabelKept' },
  'child recreated for a terminating parent': { bug: terminatingParentBuggy, fix: terminatingParentFixed, invariant: 'noChildOfTerminatingParent' },
  'child leaked without an owner reference': { bug: orphanedChildBuggy, fix: orphanedChildFixed, invariant: 'noLeakedChild' },
  'random child name double-creates after a lost response': { bug: randomNameBuggy, fix: randomNameFixed, invariant: 'oneConfigMapPerSet' },
  'event handler mutates the cached object': { bug: cacheMutationBuggy, fix: cacheMutationFixed, invariant: 'cachedObjectMutated' },
  'no watch on the child kind': { bug: missingWatchBuggy, fix: missingWatchFixed, invariant: 'podsEqualReplicas' },
  'controller not waiting for leadership': { bug: leaderElectedPairUnelected, fix: leaderElectedPair, invariant: 'leaderOverlap', fixSeeds: 10 },
  'requeue-after that never stops': { bug: requeueForeverBuggy, fix: requeueForeverFixed, invariant: 'quiescence' },
};

