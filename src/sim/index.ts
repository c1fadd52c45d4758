/**
 * kubeloom/sim: deterministic simulation testing of controllers. One seeded scheduler and a virtual clock
 * drive the API server (the embedded server's own handler, in-process), informers, work queues, reconciles
 * and a scenario in one process; seeds
 * pick perturbations (reordered and delayed watch events, dropped watches and 410 relists, conflicts,
 * server errors, lost responses, crashes); failures come with a replayable seed, a shrunk schedule and a
 * trace. See docs/simulation.md.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { SimClient, type SimListOptions } from './client.ts';
export { SimCluster, type SimKind, type SimResponse } from './cluster.ts';
export type { InProcessExchange, InProcessRequest, ResponseSink } from '../apiserver/in-process.ts';
export { type SimControllerSpec } from './controller.ts';
export { type SimFailure, type SimLimits } from './env.ts';
export { SimulationConfigError, SimulationFailedError, SimulationOverlapError, SimulationRealIoError } from './errors.ts';
export { childCount, clusterView, controlledBy, noStuckFinalizers, singleControllerOwner, type ClusterView, type Invariant } from './invariants.ts';
export { defaultPerturbationRates, noPerturbations, type PerturbationRates } from './perturbations.ts';
export { Prng } from './prng.ts';
export { type AppliedPerturbation } from './scheduler.ts';
export {
  assertSeeds,
  assertSimulation,
  explore,
  formatReport,
  runSimulation,
  type ExploreResult,
  type RunOptions,
  type ScenarioContext,
  type SimResult,
  type SimHarness,
  type Simulation,
} from './simulation.ts';
export { SimDispatcher } from './transport.ts';
export { ProcessClock, type ClockSkew } from './process-clock.ts';
export { defaultShrinkBudget, shrink, type ShrinkOptions, type ShrinkProgress } from './shrink.ts';
