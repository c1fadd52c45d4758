/**
 * Fault injection for the embedded API server: lets tests make the next requests fail or stall, cut or
 * corrupt watch streams, compact history and restart the listener, to exercise a client's retry,
 * relist and resume paths deterministically.
 */
import { StatusError, newStatus } from '../apimachinery/errors.ts';
import { reasonForCode } from './status.ts';

/** A request verb, as kube-apiserver's RequestInfo names it. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Which requests a failure applies to and how it fails. */
export interface FailSpec {
  /** Only requests with this verb (default: any). */
  verb?: Verb;
  /** Only requests for this plural resource name, e.g. 'pods' (default: any). */
  resource?: string;
  /** How many matching requests fail (default 1). */
  count?: number;
  /** The HTTP status code; the Status reason follows it (429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout, ...). */
  status: number;
  /** Sent as Retry-After and details.retryAfterSeconds (default 1 for 429, none otherwise). */
  retryAfterSeconds?: number;
  /** The Status message (default: a description of the injected failure). */
  message?: string;
}

/** Which requests to hold back and for how long. */
export interface DelaySpec {
  /** Delay in milliseconds (measured on the server's clock). */
  ms: number;
  /** Only requests with this verb (default: any). */
  verb?: Verb;
  /** Only requests for this resource (default: any). */
  resource?: string;
  /** How many matching requests are delayed (default 1). */
  count?: number;
}

/** The fault-injection interface of a running embedded API server (`server.faults`). */
export interface ApiServerFaults {
  /** Makes the next `count` requests matching verb/resource fail with a Status of code `status`. */
  failNext(spec: FailSpec): void;
  /** Delays the next `count` matching requests by `ms` before they are handled. */
  delay(spec: DelaySpec): void;
  /** Ends every open watch stream (of one resource, or all) cleanly, as an apiserver shutting down watches. */
  closeWatches(resource?: string): void;
  /**
   * Open watches (of one resource, or all) go silent: no event, no bookmark, no close at their timeout, the
   * connection left open, as behind a proxy that stopped forwarding. Watches opened later are not affected.
   * Returns how many watches stalled.
   */
  stallWatches(resource?: string): number;
  /** The next event written on a matching watch is sent half-written, then the connection is destroyed. */
  cutNextWatchEvent(resource?: string): void;
  /** Writes a line that is not JSON into every open matching watch (or the next one opened, if none is open). */
  malformedNextWatchLine(resource?: string): void;
  /** Drops watch history up to `revision` (default: current) and invalidates continue tokens at or below it. */
  compact(revision?: number): void;
  /**
   * Stops listening (destroying every connection) and listens again on the same port with the same data; the
   * watch caches start again at the current revision, so a watch from an older resourceVersion gets 410.
   */
  restart(): Promise<void>;
  /** Clears pending failNext/delay rules (and pending watch faults). */
  reset(): void;
}

/** What the faults need from the server. */
export interface FaultHost {
  closeWatches(resource: string | undefined): void;
  /** Silences open matching watches; returns how many (a host without it stalls none). */
  stallWatches?(resource: string | undefined): number;
  /** Writes a malformed line into open matching watches; returns how many received it. */
  injectMalformedLine(resource: string | undefined): number;
  compact(revision: number | undefined): void;
  restart(): Promise<void>;
}

interface Rule {
  verb: Verb | undefined;
  resource: string | undefined;
  remaining: number;
}

function matches(rule: Rule, verb: Verb, resource: string): boolean {
  return (rule.verb === undefined || rule.verb === verb) && (rule.resource === undefined || rule.resource === resource);
}

/** A request fault decided for one request. */
export interface InjectedFailure {
  error: StatusError;
  retryAfterSeconds: number | undefined;
}

/** The server-side implementation of {@link ApiServerFaults}. */
export class Faults implements ApiServerFaults {
  readonly #host: FaultHost;
  #failures: Array<Rule & { spec: FailSpec }> = [];
  #delays: Array<Rule & { ms: number }> = [];
  // Pending watch faults: resource name, or '' for any resource.
  #cuts: string[] = [];
  #malformed: string[] = [];

  constructor(host: FaultHost) {
    this.#host = host;
  }

  failNext(spec: FailSpec): void {
    this.#failures.push({ verb: spec.verb, resource: spec.resource, remaining: spec.count ?? 1, spec });
  }

  delay(spec: DelaySpec): void {
    this.#delays.push({ verb: spec.verb, resource: spec.resource, remaining: spec.count ?? 1, ms: spec.ms });
  }

  closeWatches(resource?: string): void {
    this.#host.closeWatches(resource);
  }

  stallWatches(resource?: string): number {
    return this.#host.stallWatches?.(resource) ?? 0;
  }

  cutNextWatchEvent(resource?: string): void {
    this.#cuts.push(resource ?? '');
  }

  malformedNextWatchLine(resource?: string): void {
    if (this.#host.injectMalformedLine(resource) === 0) this.#malformed.push(resource ?? '');
  }

  compact(revision?: number): void {
    this.#host.compact(revision);
  }

  restart(): Promise<void> {
    return this.#host.restart();
  }

  reset(): void {
    this.#failures = [];
    this.#delays = [];
    this.#cuts = [];
    this.#malformed = [];
  }

  /** Consumes a matching failure rule, if any, and returns the Status to answer with. */
  takeFailure(verb: Verb, resource: string): InjectedFailure | undefined {
    const rule = this.#failures.find((r) => matches(r, verb, resource));
    if (rule === undefined) return undefined;
    if (--rule.remaining <= 0) this.#failures.splice(this.#failures.indexOf(rule), 1);
    const code = rule.spec.status;
    const retryAfterSeconds = rule.spec.retryAfterSeconds ?? (code === 429 ? 1 : undefined);
    const message = rule.spec.message ?? `injected failure: ${code} for ${verb} ${resource}`;
    const status = newStatus(code, reasonForCode(code), message);
    status.details = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
    return { error: new StatusError(status), retryAfterSeconds };
  }

  /** Consumes a matching delay rule, if any, and returns its duration in ms. */
  takeDelay(verb: Verb, resource: string): number {
    const rule = this.#delays.find((r) => matches(r, verb, resource));
    if (rule === undefined) return 0;
    if (--rule.remaining <= 0) this.#delays.splice(this.#delays.indexOf(rule), 1);
    return rule.ms;
  }

  /** Whether a cut is pending for watches of `resource` (cheap check before writing). */
  hasPendingCut(resource: string): boolean {
    return this.#cuts.length > 0 && this.#cuts.some((r) => r === '' || r === resource);
  }

  /** Consumes a pending cut for `resource`. */
  takeCut(resource: string): boolean {
    const i = this.#cuts.findIndex((r) => r === '' || r === resource);
    if (i < 0) return false;
    this.#cuts.splice(i, 1);
    return true;
  }

  /** Consumes a pending malformed line for a newly opened watch of `resource`. */
  takeMalformed(resource: string): boolean {
    const i = this.#malformed.findIndex((r) => r === '' || r === resource);
    if (i < 0) return false;
    this.#malformed.splice(i, 1);
    return true;
  }
}
