/**
 * core/v1 Events ↔ events.k8s.io/v1 Events (pkg/apis/events/v1/conversion.go and its generated
 * conversions, v1.24): kube-apiserver stores both in one place (events.k8s.io events cohabit with core
 * events, `/registry/events`) and serves each object through both groups. The fields carried over as
 * they are: metadata, eventTime, series, reportingInstance, action, reason, related, type; renamed:
 * involvedObject ↔ regarding, message ↔ note, source ↔ deprecatedSource, firstTimestamp ↔
 * deprecatedFirstTimestamp, lastTimestamp ↔ deprecatedLastTimestamp, count ↔ deprecatedCount,
 * reportingComponent ↔ reportingController.
 */

type Obj = Record<string, unknown>;

/** The events.k8s.io/v1 name of each core/v1 field that is renamed. */
const renamed: readonly (readonly [core: string, events: string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

/** The fields both versions share under one name. */
const shared = ['metadata', 'eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

/** The groups' apiVersions. */
export const coreEventApiVersion = 'v1';
export const eventsEventApiVersion = 'events.k8s.io/v1';

/**
 * An Event converted to `apiVersion` (`v1` or `events.k8s.io/v1`); the object itself when it is in that
 * version already. Fields neither version knows are left out, as a decode into the target struct would.
 */
export function convertEvent(obj: Obj, apiVersion: string): Obj {
  if (obj.apiVersion === apiVersion) return obj;
  const toEvents = apiVersion === eventsEventApiVersion;
  const out: Obj = { kind: 'Event', apiVersion };
  for (const f of shared) if (obj[f] !== undefined) out[f] = obj[f];
  for (const [core, events] of renamed) {
    const [from, to] = toEvents ? [core, events] : [events, core];
    if (obj[from] !== undefined) out[to] = obj[from];
  }
  return out;
}
