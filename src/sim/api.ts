/**
 * One API request of a simulated process, as two scheduled steps on its own lane: the request reaching the
 * server (where conflicts, throttling and server errors may be injected, and where it commits), then the
 * response reaching the caller (which may be lost after the commit, or never arrive because the caller's
 * process crashed meanwhile). Because the two are separate steps, a watch event for a write can reach an
 * informer before the writer sees its own response, as on a real cluster.
 */
import { StatusError, newStatus } from '../apimachinery/errors.ts';
import type { SimEnv } from './env.ts';

/** Who sends a request. */
export interface Caller {
  /** The process name, for the trace. */
  readonly name: string;
  /** Whether writes of this caller may be perturbed (the scenario's own requests are not). */
  readonly perturbable: boolean;
  /**
   * Bumped at every crash: a response for an older epoch is dropped. Negative for a dead incarnation:
   * its requests never leave (a dead process sends nothing), and never settle.
   */
  epoch(): number;
  /** Called before each response is delivered; may crash the process (then returns false). */
  beforeResponse(): boolean;
}

function injected(code: number, reason: string, message: string): StatusError {
  return new StatusError(newStatus(code, reason, `${message} (injected by the simulation)`));
}

/**
 * Sends one request. `run` executes at the server and returns the response body and a short result for
 * the trace.
 */
export function apiCall<R>(env: SimEnv, caller: Caller, label: string, write: boolean, run: () => { value: R; note: string }): Promise<R> {
  const { sched, rates, limits } = env;
  const epoch = caller.epoch();
  if (epoch < 0) return new Promise<R>(() => undefined);
  const lane = `api/${caller.name}/${env.calls++}`;
  return new Promise<R>((resolve, reject) => {
    const perturb = caller.perturbable;
    const reqDelay = perturb ? sched.decide('requestDelay', rates.requestDelay, (u) => `delay ${caller.name} ${label} by ${Math.round(u * limits.maxRequestDelayMs)}ms`) : undefined;
    sched.post(
      lane,
      `request ${caller.name} ${label}`,
      () => {
        env.apiOps++;
        if (write && !label.includes(' leases')) env.activity();
        let outcome: { ok: true; value: R } | { ok: false; error: unknown };
        let note: string;
        const conflict = perturb && write ? sched.decide('conflict', rates.conflict, () => `409 on ${caller.name} ${label}`) : undefined;
        const failed = perturb && write && conflict === undefined ? sched.decide('writeError', rates.writeError, (u) => `${u < 0.5 ? 429 : 500} on ${caller.name} ${label}`) : undefined;
        if (conflict !== undefined) {
          outcome = { ok: false, error: injected(409, 'Conflict', 'the object has been modified') };
          note = '409 Conflict (injected)';
        } else if (failed !== undefined) {
          outcome = { ok: false, error: failed < 0.5 ? injected(429, 'TooManyRequests', 'too many requests') : injected(500, 'InternalError', 'internal error') };
          note = `${failed < 0.5 ? '429' : '500'} (injected)`;
        } else {
          try {
            const r = run();
            outcome = { ok: true, value: r.value };
            note = r.note;
          } catch (error) {
            outcome = { ok: false, error };
            note = error instanceof StatusError ? `${error.statusCode} ${error.reason}` : `error ${String(error)}`;
          }
          if (outcome.ok && perturb && write && sched.decide('lostResponse', rates.lostResponse, () => `response to ${caller.name} ${label} lost after commit`) !== undefined) {
            outcome = { ok: false, error: injected(504, 'Timeout', 'the request timed out') };
            note += ', response lost: 504 Timeout';
          }
        }
        sched.log(`API ${caller.name} ${label} -> ${note}`);
        const respDelay = perturb ? sched.decide('requestDelay', rates.requestDelay, (u) => `delay response to ${caller.name} ${label} by ${Math.round(u * limits.maxRequestDelayMs)}ms`) : undefined;
        const settled = outcome;
        sched.post(
          lane,
          `response ${caller.name} ${label}`,
          () => {
            if (caller.epoch() !== epoch || !caller.beforeResponse()) return;
            if (settled.ok) resolve(settled.value);
            else reject(settled.error);
          },
          respDelay === undefined ? 0 : Math.round(respDelay * limits.maxRequestDelayMs),
        );
      },
      reqDelay === undefined ? 0 : Math.round(reqDelay * limits.maxRequestDelayMs),
    );
  });
}
