/**
 * A simulated manager process (controller-runtime pkg/manager): the informers its controllers need, the
 * controllers, and a client reading from those informers. Workers start once every informer synced
 * (WaitForCacheSync). A `crash` perturbation, decided before each response the process receives, kills
 * the incarnation (caches, queues, timers and in-flight reconciles are lost; requests already sent still
 * reach the server) and starts a fresh one after `restartDelayMs` — what a restarted pod, or a leader that
 * lost its lease to a standby with a cold cache, looks like to the cluster.
 */
import type { Caller } from './api.ts';
import { SimClient } from './client.ts';
import { storeOf } from './cluster.ts';
import { SimController, type SimControllerSpec } from './controller.ts';
import type { SimEnv } from './env.ts';
import { SimInformer } from './informer.ts';

/** One simulated process running controllers. */
export class SimProcess {
  readonly name: string;
  readonly #env: SimEnv;
  readonly #specs: readonly SimControllerSpec[];
  #epoch = 0;
  // Set by a kill without restart: a restart already pending does not happen.
  #killed = false;
  #informers = new Map<string, SimInformer>();
  #controllers: SimController[] = [];
  readonly #caller: Caller;

  constructor(env: SimEnv, name: string, specs: readonly SimControllerSpec[]) {
    this.#env = env;
    this.name = name;
    this.#specs = specs;
    this.#caller = {
      name,
      perturbable: true,
      epoch: () => this.#epoch,
      beforeResponse: () => {
        const { sched, rates, limits } = this.#env;
        if (sched.decide('crash', rates.crash, () => `crash ${name} (restart in ${limits.restartDelayMs}ms)`) === undefined) return true;
        this.#crash();
        return false;
      },
    };
  }

  /** Starts an incarnation: informers list and watch; controllers start once all synced. */
  start(): void {
    if (this.#killed) return;
    const env = this.#env;
    const informers = new Map<string, SimInformer>();
    let unsynced = 0;
    const client = new SimClient(env, this.#caller, informers);
    const controllers = this.#specs.map((s) => new SimController(env, this.name, s, client));
    const onSynced = (): void => {
      if (--unsynced === 0) for (const c of controllers) c.start();
    };
    for (const c of controllers) {
      for (const kind of c.kinds()) {
        env.cluster.register(kind);
        const store = storeOf(kind);
        let inf = informers.get(store);
        if (inf === undefined) {
          inf = new SimInformer(env, this.name, kind, onSynced);
          informers.set(store, inf);
          unsynced++;
        }
        inf.addHandler((type, obj, old, cause) => c.handle(kind, obj, old, cause));
      }
    }
    this.#informers = informers;
    this.#controllers = controllers;
    env.sched.log(`PROCESS ${this.name} start (incarnation ${this.#epoch})`);
    for (const inf of informers.values()) inf.start();
  }

  /** Kills the incarnation now (the scenario's `kill`); it restarts after `restartAfterMs` if given. */
  kill(restartAfterMs: number | undefined): void {
    this.#killed = restartAfterMs === undefined;
    this.#crash(restartAfterMs);
  }

  #crash(restartAfterMs: number | undefined = this.#env.limits.restartDelayMs): void {
    const { sched } = this.#env;
    this.#epoch++;
    for (const inf of this.#informers.values()) inf.stop();
    for (const c of this.#controllers) c.stop();
    const dropped = sched.dropLanes(`${this.name}/`);
    sched.log(`PROCESS ${this.name} crashed (${dropped} pending deliveries lost)`);
    if (restartAfterMs !== undefined) sched.post(`${this.name}/restart`, `restart ${this.name}`, () => this.start(), restartAfterMs);
  }
}
