/**
 * The query parameters lists, watches and collection deletes share: apimachinery's ListOptions
 * validation, and label/field selectors turned into an object filter.
 */
import type { StatusCause } from '../../api/meta/v1.ts';
import { parseFieldSelector, type FieldSelector } from '../../apimachinery/fields.ts';
import { parseSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import { fieldsOf, validateFieldSelector } from '../selectable-fields.ts';
import { badRequest, invalid, untypedError } from '../status.ts';
import type { WatchFilter } from '../watch-stream.ts';
import type { Obj, Target } from './scope.ts';

/** A request's parsed selectors; undefined when absent or empty (everything matches). */
export interface Selectors {
  label: LabelSelector | undefined;
  field: FieldSelector | undefined;
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` };
}

/**
 * The checks of apimachinery's ValidateListOptions (meta/internalversion/validation) for lists and
 * watches, in its order; any failure is one 422 Invalid ListOptions.meta.k8s.io "" with every cause.
 */
export function validateListOptions(q: URLSearchParams, watch: boolean): void {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const sendInitial = q.get('sendInitialEvents');
  const causes: StatusCause[] = [];
  if (watch) {
    if (sendInitial !== null && match !== 'NotOlderThan') causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (match !== '') {
      if (sendInitial === null) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (cont !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== '') {
      if (rv === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (cont !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitial !== null) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (causes.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', causes);
}

/** An integer query parameter (limit, timeoutSeconds); 400 with strconv's words when it is not one. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!/^[-+]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/**
 * Checks a resourceVersion parameter as the storage layer parses it: a malformed value is an untyped
 * error (500) for lists and watches, a 400 when resourceVersionMatch=Exact asks for it.
 */
export function parseResourceVersion(rv: string, match: string): void {
  if (rv === '' || /^\d+$/.test(rv)) return;
  const detail = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`;
  if (match === 'Exact') throw badRequest(`invalid resource version: ${detail}`);
  throw untypedError(500, detail);
}

/** Parses labelSelector and fieldSelector (400 when malformed, field selectors checked against the resource). */
export function parseSelectors(t: Target, q: URLSearchParams): Selectors {
  let label: LabelSelector | undefined;
  let field: FieldSelector | undefined;
  try {
    const l = q.get('labelSelector');
    if (l !== null && l !== '') label = parseSelector(l);
  } catch (err) {
    throw badRequest(`unable to parse requirement: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const f = q.get('fieldSelector');
    if (f !== null && f !== '') field = parseFieldSelector(f);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // fields.UnescapedRune prints the rune as a number.
    const unescaped = /unescaped '(.)'/.exec(message);
    throw badRequest(`invalid field selector: ${unescaped === null ? message : `unescaped character in value: ${unescaped[1]!.codePointAt(0)!}`}`);
  }
  if (field !== undefined) validateFieldSelector(t.r, field);
  if (label?.empty()) label = undefined;
  if (field?.empty()) field = undefined;
  return { label, field };
}

/** The objects a request selects: in the target's namespace (if any), with `name` (if given), matching both selectors. */
export function objectFilter(t: Target, sel: Selectors, name?: string): WatchFilter {
  const { label, field } = sel;
  const ns = t.namespace;
  return (o) => {
    const meta = o.metadata as Obj;
    if (ns !== '' && meta.namespace !== ns) return false;
    if (name !== undefined && meta.name !== name) return false;
    if (label !== undefined && !label.matches(meta.labels as Record<string, string> | undefined)) return false;
    if (field !== undefined && !field.matches(fieldsOf(t.r, o))) return false;
    return true;
  };
}
