/**
 * The query parameters every write shares — `dryRun`, `fieldManager` (defaulted from the User-Agent),
 * `fieldValidation`, and for patches `force` — validated as apimachinery's
 * `apis/meta/v1/validation` ValidateCreateOptions, ValidateUpdateOptions and ValidatePatchOptions do:
 * any failure is one 422 naming the options kind.
 */
import type { IncomingMessage } from 'node:http';
import { causesOf, forbiddenField, GoValue, goQuote, invalidValue, notSupported, path, required, tooLong, type FieldError } from '../registry/validation/field.ts';
import { invalid } from '../status.ts';

/** Pulls the manager name out of a User-Agent, as kube-apiserver does: the product before the first '/'. */
export function managerFromUserAgent(ua: string | undefined): string {
  const s = (ua ?? '').split('/')[0]!.trim();
  return s === '' ? 'unknown' : s.slice(0, 128);
}

/** The options of one write. */
export interface WriteOptions {
  dryRun: boolean;
  /** The field manager: `fieldManager`, else from the User-Agent. */
  manager: string;
  /** `force` of an apply patch. */
  force: boolean;
}

// metav1 FieldManagerMaxLength.
const fieldManagerMaxLength = 128;
const fieldValidationValues = ['', 'Ignore', 'Strict', 'Warn'];

/** %#U of a rune Go does not consider printable. */
function goRune(r: string): string {
  return `U+${r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isPrintable(r: string): boolean {
  return !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u.test(r) && !(/\s/.test(r) && r !== ' ');
}

/** ValidateFieldManager. */
function validateFieldManager(manager: string): FieldError[] {
  const out: FieldError[] = [];
  if (Buffer.byteLength(manager) > fieldManagerMaxLength) out.push(tooLong(path('fieldManager'), fieldManagerMaxLength));
  let i = 0;
  for (const r of manager) {
    if (!isPrintable(r)) out.push(invalidValue(path('fieldManager'), manager, `invalid character ${goRune(r)} (at position ${i})`));
    i += Buffer.byteLength(r);
  }
  return out;
}

/** ValidateDryRun: every value must be All. */
function validateDryRun(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupported(path('dryRun'), new GoValue(`[]string{${values.map(goQuote).join(', ')}}`), ['All'])];
}

/**
 * Parses and validates a write's options (`kind` names them in the 422: CreateOptions, UpdateOptions,
 * PatchOptions); `apply` marks an apply patch (fieldManager required, force allowed).
 */
export function createOptions(q: URLSearchParams, req: IncomingMessage, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', patch?: { apply: boolean }): WriteOptions {
  const errors: FieldError[] = [];
  const fieldManager = q.get('fieldManager') ?? '';
  const forceParam = q.get('force');
  if (patch !== undefined) {
    if (!patch.apply && forceParam !== null) errors.push(forbiddenField(path('force'), 'may not be specified for non-apply patch'));
    if (patch.apply && fieldManager === '') errors.push(required(path('fieldManager'), 'is required for apply patch'));
  }
  errors.push(...validateFieldManager(fieldManager));
  const dryRun = q.getAll('dryRun');
  errors.push(...validateDryRun(dryRun));
  const fieldValidation = q.get('fieldValidation') ?? '';
  if (!fieldValidationValues.includes(fieldValidation)) errors.push(notSupported(path('fieldValidation'), fieldValidation, fieldValidationValues));
  if (errors.length > 0) throw invalid('meta.k8s.io', kind, '', causesOf(errors));
  return {
    dryRun: dryRun.length > 0,
    manager: fieldManager !== '' ? fieldManager : managerFromUserAgent(req.headers['user-agent']),
    force: forceParam !== null && !(forceParam === '0' || /^f(alse)?$/i.test(forceParam)),
  };
}

/** Whether the request asks for a dry run (its values are validated by {@link createOptions} or the DeleteOptions). */
export function dryRunOf(q: URLSearchParams): boolean {
  return q.getAll('dryRun').length > 0;
}

/** Whether a dryRun parameter list is valid (for DeleteOptions, which validate it with their own kind). */
export function dryRunErrors(values: readonly string[]): FieldError[] {
  return validateDryRun(values);
}
