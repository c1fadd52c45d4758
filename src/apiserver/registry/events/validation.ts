/**
 * Event validation (pkg/apis/core/validation/events.go, v1.24), on the core form of the Event whichever
 * group the request came through (conversion.ts): every create and update passes the legacy checks (an
 * Event with an eventTime needs reportingController, reportingInstance, action and reason, and limits their
 * lengths); through events.k8s.io/v1 a create also needs eventTime, a Normal or Warning type and the
 * deprecated fields unset, and an update may change nothing but the series. Field paths are the core
 * type's (`message`, `count`, `source`, …), as upstream reports them. The object metadata is validated by
 * the generic registry.
 */
import { isQualifiedName, isDns1123Subdomain } from '../name-validation.ts';
import { invalidValue, path, required, type FieldError } from '../validation/field.ts';
import { convertEvent, coreEventApiVersion } from './conversion.ts';

type Obj = Record<string, unknown>;

// The limits of events.go.
const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isZeroTime = (v: unknown): boolean => typeof v !== 'string' || v === '';

/** A field error whose value is already printed as Go prints it. */
function invalidRaw(field: string, printed: string, detail: string): FieldError {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: ${detail}` };
}

// time.Time's String(): "2006-01-02 15:04:05.999999999 -0700 MST" in UTC.
function goTime(v: unknown): string {
  if (isZeroTime(v)) return '0001-01-01 00:00:00 +0000 UTC';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(str(v));
  if (m === null) return str(v);
  const frac = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1]} ${m[2]}${frac === '' ? '' : `.${frac}`} +0000 UTC`;
}

function goReference(v: unknown): string {
  if (!isObj(v)) return 'null';
  const f = (k: string): string => JSON.stringify(str(v[k]));
  return `core.ObjectReference{Kind:${f('kind')}, Namespace:${f('namespace')}, Name:${f('name')}, UID:${f('uid')}, APIVersion:${f('apiVersion')}, ResourceVersion:${f('resourceVersion')}, FieldPath:${f('fieldPath')}}`;
}

function goSource(v: unknown): string {
  const s = isObj(v) ? v : {};
  return `core.EventSource{Component:${JSON.stringify(str(s.component))}, Host:${JSON.stringify(str(s.host))}}`;
}

/** legacyValidateEvent. */
function legacyValidate(e: Obj): FieldError[] {
  const out: FieldError[] = [];
  const meta = isObj(e.metadata) ? e.metadata : {};
  const namespace = str(meta.namespace);
  const involved = isObj(e.involvedObject) ? e.involvedObject : {};
  const involvedNamespace = str(involved.namespace);
  if (isZeroTime(e.eventTime)) {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') out.push(invalidValue(path('involvedObject', 'namespace'), involvedNamespace, 'does not match event.namespace'));
    } else if (namespace !== involvedNamespace) out.push(invalidValue(path('involvedObject', 'namespace'), involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') out.push(invalidValue(path('involvedObject', 'namespace'), involvedNamespace, 'does not match event.namespace'));
    const controller = str(e.reportingComponent);
    if (controller === '') out.push(required(path('reportingController')));
    for (const msg of isQualifiedName(controller)) out.push(invalidValue(path('reportingController'), controller, msg));
    const instance = str(e.reportingInstance);
    if (instance === '') out.push(required(path('reportingInstance')));
    if (instance.length > reportingInstanceLengthLimit) out.push(invalidValue(path('reportingInstance'), '', `can have at most ${reportingInstanceLengthLimit} characters`));
    const action = str(e.action);
    if (action === '') out.push(required(path('action')));
    if (action.length > actionLengthLimit) out.push(invalidValue(path('action'), '', `can have at most ${actionLengthLimit} characters`));
    const reason = str(e.reason);
    if (reason === '') out.push(required(path('reason')));
    if (reason.length > reasonLengthLimit) out.push(invalidValue(path('reason'), '', `can have at most ${reasonLengthLimit} characters`));
    if (str(e.message).length > noteLengthLimit) out.push(invalidValue(path('message'), '', `can have at most ${noteLengthLimit} characters`));
  }
  for (const msg of isDns1123Subdomain(namespace)) out.push(invalidValue(path('namespace'), namespace, msg));
  return out;
}

/** validateV1EventSeries. */
function validateSeries(e: Obj): FieldError[] {
  if (!isObj(e.series)) return [];
  const out: FieldError[] = [];
  const count = typeof e.series.count === 'number' ? e.series.count : 0;
  if (count < 2) out.push(invalidValue(path('series.count'), '', 'should be at least 2'));
  if (isZeroTime(e.series.lastObservedTime)) out.push(required(path('series.lastObservedTime')));
  return out;
}

/** ValidateEventCreate; `strict` for a request through events.k8s.io/v1. */
export function validateEventCreate(obj: Obj, strict: boolean): FieldError[] {
  const e = convertEvent(obj, coreEventApiVersion);
  const out = legacyValidate(e);
  if (!strict) return out;
  out.push(...validateSeries(e));
  if (isZeroTime(e.eventTime)) out.push(required(path('eventTime')));
  const type = str(e.type);
  if (type !== 'Normal' && type !== 'Warning') out.push(invalidValue(path('type'), '', `has invalid value: ${type}`));
  if (!isZeroTime(e.firstTimestamp)) out.push(invalidValue(path('firstTimestamp'), '', 'needs to be unset'));
  if (!isZeroTime(e.lastTimestamp)) out.push(invalidValue(path('lastTimestamp'), '', 'needs to be unset'));
  if (typeof e.count === 'number' && e.count !== 0) out.push(invalidValue(path('count'), '', 'needs to be unset'));
  const source = isObj(e.source) ? e.source : {};
  if (str(source.component) !== '' || str(source.host) !== '') out.push(invalidValue(path('source'), '', 'needs to be unset'));
  return out;
}

/** ValidateEventUpdate; `strict` for a request through events.k8s.io/v1. */
export function validateEventUpdate(obj: Obj, oldObj: Obj, strict: boolean): FieldError[] {
  const e = convertEvent(obj, coreEventApiVersion);
  const old = convertEvent(oldObj, coreEventApiVersion);
  const out = legacyValidate(e);
  if (!strict) return out;
  if (JSON.stringify(e.series ?? null) !== JSON.stringify(old.series ?? null)) out.push(...validateSeries(e));
  // Compared as Go compares the values (a missing struct is its zero value), through their printed forms.
  const immutable = (field: string, printed: (v: unknown) => string, a: unknown, b: unknown): void => {
    if (printed(a) !== printed(b)) out.push(invalidRaw(field, printed(a), 'field is immutable'));
  };
  const involved = (v: unknown): string => goReference(isObj(v) ? v : {});
  const quoted = (v: unknown): string => JSON.stringify(str(v));
  const number = (v: unknown): string => String(typeof v === 'number' ? v : 0);
  immutable('involvedObject', involved, e.involvedObject, old.involvedObject);
  immutable('reason', quoted, e.reason, old.reason);
  immutable('message', quoted, e.message, old.message);
  immutable('source', goSource, e.source, old.source);
  immutable('firstTimestamp', goTime, e.firstTimestamp, old.firstTimestamp);
  immutable('lastTimestamp', goTime, e.lastTimestamp, old.lastTimestamp);
  immutable('count', number, e.count, old.count);
  // (events.go checks the reason twice.)
  immutable('reason', quoted, e.reason, old.reason);
  immutable('type', quoted, e.type, old.type);
  immutable('eventTime', goTime, e.eventTime, old.eventTime);
  immutable('action', quoted, e.action, old.action);
  immutable('related', goReference, e.related, old.related);
  immutable('reportingController', quoted, e.reportingComponent, old.reportingComponent);
  immutable('reportingInstance', quoted, e.reportingInstance, old.reportingInstance);
  return out;
}
