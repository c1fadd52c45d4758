/**
 * One API request of a simulated process, as two scheduled steps on its own lane: the request reaching the
 * server (where conflicts, throttling and server errors may be injected, and where it commits), then the
 * response reaching the caller (which may be lost after the commit, or never arrive because the caller's
 * process crashed meanwhile). Because the two are separate steps, a watch event for a write can reach an
 * informer before the writer sees its own response, as on a real cluster.
 */
import { StatusError, newStatus } from '../apimachinery/errors.ts';
import type { InProcessRequest } from '../apiserver/in-process.ts';
import type { SimResponse } from './cluster.ts';
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

type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

function injected(code: number, reason: string, message: string): StatusError {
  return new StatusError(newStatus(code, reason, `${message} (injected by the simulation)`));
}

/** What the server made of a request: the response body (or the error it answers with) and a note for the trace. */
export interface ServerOutcome<R> {
  /** The caller's result. */
  value: R;
  /** A short result for the trace, e.g. `201 default/web-x rv=5`. */
  note: string;
}

/**
 * Sends one request. `run` executes at the server (the API server's handler, whose answer comes within
 * the step's microtasks) and returns the response body and a short result for the trace; it throws (or
 * rejects with) the error the server answered with.
 */
export function apiCall<R>(env: SimEnv, caller: Caller, label: string, write: boolean, run: () => ServerOutcome<R> | Promise<ServerOutcome<R>>): Promise<R> {
  const { sched, rates, limits } = env;
  const epoch = caller.epoch();
  if (epoch < 0) return new Promise<R>(() => undefined);
  const lane = `api/${caller.name}/${env.calls++}`;
  return new Promise<R>((resolve, reject) => {
    const perturb = caller.perturbable;
    const reqDelay = perturb ? sched.decide('requestDelay', rates.requestDelay, (u) => `delay ${caller.name} ${label} by ${Math.round(u * limits.maxRequestDelayMs)}ms`) : undefined;
    // The response's step: logged when the server answered, delivered when the scheduler picks it.
    const respond = (settled: Outcome<R>, note: string): void => {
      sched.log(`API ${caller.name} ${label} -> ${note}`);
      const respDelay = perturb ? sched.decide('requestDelay', rates.requestDelay, (u) => `delay response to ${caller.name} ${label} by ${Math.round(u * limits.maxRequestDelayMs)}ms`) : undefined;
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
    };
    sched.post(
      lane,
      `request ${caller.name} ${label}`,
      () => {
        env.apiOps++;
        if (write && !label.includes(' leases')) env.activity();
        const conflict = perturb && write ? sched.decide('conflict', rates.conflict, () => `409 on ${caller.name} ${label}`) : undefined;
        const failed = perturb && write && conflict === undefined ? sched.decide('writeError', rates.writeError, (u) => `${u < 0.5 ? 429 : 500} on ${caller.name} ${label}`) : undefined;
        if (conflict !== undefined) {
          respond({ ok: false, error: injected(409, 'Conflict', 'the object has been modified') }, '409 Conflict (injected)');
          return;
        }
        if (failed !== undefined) {
          respond({ ok: false, error: failed < 0.5 ? injected(429, 'TooManyRequests', 'too many requests') : injected(500, 'InternalError', 'internal error') }, `${failed < 0.5 ? '429' : '500'} (injected)`);
          return;
        }
        const served = (outcome: Outcome<R>, note: string): void => {
          if (outcome.ok && perturb && write && sched.decide('lostResponse', rates.lostResponse, () => `response to ${caller.name} ${label} lost after commit`) !== undefined) {
            respond({ ok: false, error: injected(504, 'Timeout', 'the request timed out') }, `${note}, response lost: 504 Timeout`);
            return;
          }
          respond(outcome, note);
        };
        const failedWith = (error: unknown): void => served({ ok: false, error }, error instanceof ServerAnswerError ? answerNote('', error.response) : error instanceof StatusError ? `${error.statusCode} ${error.reason}` : `error ${String(error)}`);
        let r: ServerOutcome<R> | Promise<ServerOutcome<R>>;
        try {
          r = run();
        } catch (error) {
          failedWith(error);
          return;
        }
        if (r instanceof Promise) r.then((v) => served({ ok: true, value: v.value }, v.note), failedWith);
        else served({ ok: true, value: r.value }, r.note);
      },
      reqDelay === undefined ? 0 : Math.round(reqDelay * limits.maxRequestDelayMs),
    );
  });
}

/** A response of the API server's handler that is not a success: the caller gets it as the server wrote it. */
export class ServerAnswerError extends Error {
  /** The response as the handler wrote it. */
  readonly response: SimResponse;
  constructor(response: SimResponse) {
    super(`the API server answered ${response.status}`);
    this.name = 'ServerAnswerError';
    this.response = response;
  }
}

const reasonPattern = /"reason":"([A-Za-z]*)"/;
const rvPattern = /"resourceVersion":"(\d+)"/;

/** The trace's short form of an answer: the status, and the revision it carries where it has one. */
export function answerNote(method: string, r: SimResponse): string {
  if (r.status >= 400) return `${r.status} ${reasonPattern.exec(r.body)?.[1] ?? ''}`.trimEnd();
  const rv = rvPattern.exec(r.body)?.[1];
  if (method === 'POST') {
    const meta = (JSON.parse(r.body) as { metadata?: { name?: string; namespace?: string } }).metadata;
    return `${r.status} ${meta?.namespace === undefined ? '' : `${meta.namespace}/`}${meta?.name ?? ''} rv=${rv ?? ''}`;
  }
  if (method === 'GET' || method === 'DELETE' || rv === undefined) return String(r.status);
  return `${r.status} rv=${rv}`;
}

/**
 * The server side of {@link apiCall} for a request the API server's handler answers: resolves with its
 * response, rejects with a {@link ServerAnswerError} when it is not a success (nothing was committed).
 */
export async function serveRequest(env: SimEnv, request: InProcessRequest): Promise<ServerOutcome<SimResponse>> {
  const r = await env.cluster.request(request);
  if (r.status >= 400) throw new ServerAnswerError(r);
  return { value: r, note: answerNote(request.method, r) };
}
