/**
 * The built-in `leaderOverlap` invariant: two leaders of one Lease reconciling at once. No upstream
 * counterpart; it checks client-go's leader-election contract (tools/leaderelection/leaderelection.go):
 * a leader that cannot renew stops leading after `renewDeadline`, before any other candidate may take
 * the Lease (no change seen for `leaseDuration`, measured on the candidate's own clock), so with clocks
 * that run at nearly the same rate no two processes lead at once. The contract does not hold for a
 * process that was stopped (a pause perturbation): client-go documents that leader election gives no
 * fencing, and a paused leader resumes with its in-flight work before its elector notices the loss.
 *
 * The tracker follows the REST processes' Manager logs: `successfully acquired lease` (src/manager,
 * onStartedLeading) makes a process the Lease's latest holder; a `Reconcile done` by a process whose Lease
 * another process acquired after it is an overlap. Without a pause of that process since its acquisition
 * the run fails with `leaderOverlap`; after one, the trace records a `SPLIT BRAIN` line instead (what the
 * contract allows) and the run goes on, for a while: a leader must notice the loss within its renew
 * deadline once it runs again, so a resumed leader still reconciling more than `maxStaleLeaderMs` (15 s)
 * after its pause ended fails the run too (a controller that does not stop when it stops leading).
 *
 * It also fails a process that reconciles a key, under a controller, that the Lease's current holder
 * reconciles too, without ever having held that Lease: a controller that is not leader-elected in a
 * leader-elected deployment (every replica acts).
 */
import type { SimEnv } from './env.ts';

// client-go leaderelection / controller-runtime manager default LeaseDuration (15 s); see SimLimits.maxStaleLeaderMs.
const defaultMaxStaleLeaderMs = 15_000;

interface Holding {
  readonly process: string;
  readonly atMs: number;
  readonly order: number;
}

/** Tracks which process leads which Lease, and their pauses. */
export class LeaderTracker {
  readonly #env: SimEnv;
  // Lease -> its latest acquisition.
  readonly #latest = new Map<string, Holding>();
  // Process -> Lease -> its own acquisition.
  readonly #held = new Map<string, Map<string, Holding>>();
  // Process -> end of its latest pause, and when that pause began.
  readonly #pauses = new Map<string, { from: number; until: number }[]>();
  #order = 0;
  // `<controller> <key>` -> processes that reconciled it.
  readonly #reconciledBy = new Map<string, Set<string>>();
  /** Overlaps the contract allows (a paused leader) seen so far. */
  splitBrains = 0;

  constructor(env: SimEnv) {
    this.#env = env;
  }

  /** `process` acquired `lease`. */
  acquired(process: string, lease: string): void {
    // The elector and the Manager both log an acquisition: the second line is the same one.
    if (this.#latest.get(lease)?.process === process && this.#held.get(process)?.has(lease) === true) return;
    const h: Holding = { process, atMs: this.#env.sched.clock.now(), order: this.#order++ };
    this.#latest.set(lease, h);
    let mine = this.#held.get(process);
    if (mine === undefined) this.#held.set(process, (mine = new Map<string, Holding>()));
    mine.set(lease, h);
  }

  /** `process` crashed: its incarnation's leadership is gone with it. */
  crashed(process: string): void {
    this.#held.delete(process);
  }

  /** `process` is paused from `fromMs` until `untilMs` (virtual). */
  paused(process: string, fromMs: number, untilMs: number): void {
    let list = this.#pauses.get(process);
    if (list === undefined) this.#pauses.set(process, (list = []));
    list.push({ from: fromMs, until: untilMs });
  }

  /** `process` finished a reconcile of `key` by `controller`. */
  reconciled(process: string, controller: string, key: string): void {
    const env = this.#env;
    const id = `${controller} ${key}`;
    let by = this.#reconciledBy.get(id);
    if (by === undefined) this.#reconciledBy.set(id, (by = new Set()));
    by.add(process);
    const mine = this.#held.get(process);
    if (mine === undefined) {
      // Never a holder (or not since its crash): acting on a key the current leader acts on.
      for (const [lease, latest] of this.#latest) {
        if (latest.process === process || !by.has(latest.process) || this.#held.get(latest.process)?.get(lease) !== latest) continue;
        env.fail('leaderOverlap', `${process} reconciled ${key} (${controller}) without holding ${lease}, which ${latest.process} holds and reconciles it under: the controller does not wait for leadership`);
        return;
      }
      return;
    }
    for (const [lease, own] of mine) {
      const latest = this.#latest.get(lease)!;
      if (latest.order <= own.order) continue;
      const now = env.sched.clock.now();
      const pauses = (this.#pauses.get(process) ?? []).filter((p) => p.until > own.atMs);
      const what = `${process} reconciled ${key} (${controller}) as leader of ${lease}, which ${latest.process} acquired ${latest.atMs - own.atMs}ms after it`;
      if (pauses.length === 0) {
        env.fail('leaderOverlap', `${what}, without a pause`);
        return;
      }
      const resumedAt = Math.max(...pauses.map((p) => p.until));
      const bound = env.limits.maxStaleLeaderMs ?? defaultMaxStaleLeaderMs;
      const stale = `${now - latest.atMs}ms after ${latest.process} took over, ${Math.max(0, now - resumedAt)}ms after ${process} resumed`;
      if (now - resumedAt > bound) {
        env.fail('leaderOverlap', `${what}: ${stale}, past the ${bound}ms a resumed leader may act (maxStaleLeaderMs) before it notices the loss; it does not stop its work when it stops leading`);
      } else {
        this.splitBrains++;
        env.sched.log(`SPLIT BRAIN ${what}; ${stale} (allowed up to ${bound}ms after it resumed: ${process} was paused while leading; leader election does not fence)`);
      }
      return;
    }
  }
}
