/**
 * Helpers shared by both recorders (client-go tools/record/util and tools/reference).
 */
import { randomUUID } from 'node:crypto';
import type { ObjectReference } from '../../api/core/v1.ts';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apimachinery/object.ts';

/** The event types the API accepts (v1.EventTypeNormal / EventTypeWarning). */
export const EventType = {
  /** Normal operation. */
  Normal: 'Normal',
  /** Something may be wrong. */
  Warning: 'Warning',
} as const;

/** 'Normal' or 'Warning'. */
export type EventTypeValue = (typeof EventType)[keyof typeof EventType];

/** True for the two valid event types (util.ValidateEventType). */
export function validateEventType(eventType: string): eventType is EventTypeValue {
  return eventType === EventType.Normal || eventType === EventType.Warning;
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The name of a new event: `<object name>.<timestamp in ns, hex>` (util.GenerateEventName), or a random
 * UUID when that is not a valid DNS subdomain (e.g. the object's name has upper-case letters).
 */
export function generateEventName(refName: string, unixNanos: bigint): string {
  const name = `${refName}.${unixNanos.toString(16)}`;
  return name.length <= 253 && dnsSubdomain.test(name) ? name : randomUUID();
}

/**
 * Turns the clock's milliseconds into strictly increasing nanosecond timestamps for event names. Go
 * has nanosecond clocks, so two events about one object rarely share a name; with milliseconds they
 * would whenever a controller reports twice within one, and the second create would fail with
 * AlreadyExists. Within a process this keeps names distinct while preserving their time order.
 */
export class UniqueNanos {
  #last = 0n;

  /** A nanosecond timestamp at or after `ms`, greater than every previous one. */
  next(ms: number): bigint {
    const candidate = BigInt(Math.floor(ms)) * 1_000_000n;
    this.#last = candidate > this.#last ? candidate : this.#last + 1n;
    return this.#last;
  }
}

/** An event's subject could not be turned into an ObjectReference. */
export class InvalidReferenceError extends KubeloomError {
  constructor(message: string) {
    super('ERR_INVALID_REFERENCE', message);
  }
}

/** An object an event can be about: a full object (with kind) or a reference to one. */
export type EventSubject = KubeObject | ObjectReference;

function isKubeObject(subject: EventSubject): subject is KubeObject {
  return typeof subject === 'object' && subject !== null && 'metadata' in subject;
}

/**
 * Builds a reference to `subject` (reference.GetReference): kind, apiVersion, name, namespace, uid and
 * resourceVersion of an object; a value without `metadata` is taken as a reference already. Throws
 * {@link InvalidReferenceError} when the kind is unknown, as upstream fails without a scheme entry.
 */
export function getReference(subject: EventSubject): ObjectReference {
  if (typeof subject !== 'object' || subject === null) throw new InvalidReferenceError('cannot reference a non-object');
  if (!isKubeObject(subject)) return { ...subject };
  if (typeof subject.kind !== 'string' || subject.kind === '') {
    throw new InvalidReferenceError(`object ${subject.metadata?.namespace ?? ''}/${subject.metadata?.name ?? ''} has no kind`);
  }
  const ref: ObjectReference = { kind: subject.kind };
  if (subject.apiVersion) ref.apiVersion = subject.apiVersion;
  const meta = subject.metadata;
  if (meta?.name) ref.name = meta.name;
  if (meta?.namespace) ref.namespace = meta.namespace;
  if (meta?.uid) ref.uid = meta.uid;
  if (meta?.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  return ref;
}

/** A stable string for an ObjectReference, used in cache keys (fixed field order). */
export function referenceKey(ref: ObjectReference | undefined): string {
  if (ref === undefined) return '';
  return JSON.stringify([ref.kind ?? '', ref.namespace ?? '', ref.name ?? '', ref.uid ?? '', ref.apiVersion ?? '', ref.resourceVersion ?? '', ref.fieldPath ?? '']);
}
