/**
 * core/v1 Events from the controllers running inside the server, shaped as client-go's
 * tools/record EventRecorder writes them (name `<object>.<nanoseconds in hex>`, source component, count 1,
 * first and last timestamps). Failures to record (a namespace being terminated, say) are dropped, as the
 * recorder drops them after logging.
 */
import type { Clock } from '../../util/clock/clock.ts';
import { formatTime } from '../handlers/scope.ts';
import type { LoopbackClient } from './loopback-client.ts';

/** The object an event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
  /** The part of the object, as a kubelet names a container: `spec.containers{name}`. */
  readonly fieldPath?: string;
}

// The last event name's nanoseconds, across recorders: events recorded within one clock reading (a
// FakeClock's, say) get distinct names, as time.Now().UnixNano() gives them upstream.
let lastNanos = 0n;

/** Records events for one component. */
export class EventRecorder {
  readonly #client: LoopbackClient;
  readonly #clock: Clock;
  readonly #component: string;
  readonly #host: string | undefined;

  /** `host` is the event source's host (a kubelet's node name); none for control-plane components. */
  constructor(client: LoopbackClient, clock: Clock, component: string, host?: string) {
    this.#client = client;
    this.#clock = clock;
    this.#component = component;
    this.#host = host;
  }

  /** Records a Warning event. */
  warning(about: InvolvedObject, reason: string, message: string): void {
    this.#record(about, 'Warning', reason, message);
  }

  /** Records a Normal event. */
  normal(about: InvolvedObject, reason: string, message: string): void {
    this.#record(about, 'Normal', reason, message);
  }

  #record(about: InvolvedObject, type: string, reason: string, message: string): void {
    const ms = this.#clock.now();
    const now = formatTime(ms);
    const namespace = about.namespace === '' ? 'default' : about.namespace;
    let nanos = BigInt(ms) * 1_000_000n;
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    const event = {
      metadata: { name: `${about.name}.${nanos.toString(16)}`, namespace },
      involvedObject: {
        kind: about.kind,
        namespace: about.namespace === '' ? undefined : about.namespace,
        name: about.name,
        uid: about.uid,
        apiVersion: about.apiVersion,
        ...(about.fieldPath === undefined ? {} : { fieldPath: about.fieldPath }),
      },
      reason,
      message,
      source: this.#host === undefined ? { component: this.#component } : { component: this.#component, host: this.#host },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    };
    try {
      this.#client.create(this.#client.resourceFor('v1', 'Event'), namespace, event);
    } catch {
      // As the recorder: an event that cannot be written is not retried forever.
    }
  }
}
