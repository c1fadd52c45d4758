/**
 * Validation of object metadata: ValidateObjectMeta and ValidateObjectMetaUpdate of
 * `pkg/apis/core/validation` and apimachinery's `api/validation/objectmeta.go` — names and
 * generateName, namespace, labels, annotations (and their total size), finalizers, ownerReferences,
 * and what an update may not change.
 */
import { isObject } from '../../object-meta.ts';
import { forbiddenField, goStrings, invalidValue, path, required, tooLong, type FieldError, type FieldPath } from './field.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './names.ts';

type Obj = Record<string, unknown>;

// apimachinery's TotalAnnotationSizeLimitB.
const totalAnnotationSizeLimit = 256 * 1024;

// helper.IsStandardFinalizerName: finalizers that need no domain.
const standardFinalizers: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

function stringMap(v: unknown): Record<string, string> | undefined {
  return isObject(v) ? (v as Record<string, string>) : undefined;
}

/** ValidateLabels. */
export function validateLabels(labels: Record<string, string> | undefined, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) out.push(invalidValue(fld, k, m));
    for (const m of isValidLabelValue(v)) out.push(invalidValue(fld, v, m));
  }
  return out;
}

/** ValidateAnnotations. */
export function validateAnnotations(annotations: Record<string, string> | undefined, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) out.push(invalidValue(fld, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > totalAnnotationSizeLimit) out.push(tooLong(fld, totalAnnotationSizeLimit));
  return out;
}

/** ValidateFinalizers (qualified names, no duplicates) plus core's standard-name rule. */
function validateFinalizers(finalizers: unknown[], fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  finalizers.forEach((f, i) => {
    const name = String(f);
    for (const m of isQualifiedName(name)) out.push(invalidValue(fld, name, m));
    if (name.split('/').length === 1 && !standardFinalizers.has(name)) out.push(invalidValue(fld.index(i), name, 'name is neither a standard finalizer name nor is it fully qualified'));
    seen.add(name);
  });
  return out;
}

function validateOwnerReferences(refs: unknown[], fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  let controllers = 0;
  for (const r of refs) {
    if (!isObject(r)) continue;
    if (typeof r.apiVersion !== 'string' || r.apiVersion === '') out.push(invalidValue(fld.child('apiVersion'), r.apiVersion ?? '', 'version must not be empty'));
    if (typeof r.kind !== 'string' || r.kind === '') out.push(invalidValue(fld.child('kind'), r.kind ?? '', 'kind must not be empty'));
    if (typeof r.name !== 'string' || r.name === '') out.push(invalidValue(fld.child('name'), r.name ?? '', 'name must not be empty'));
    if (typeof r.uid !== 'string' || r.uid === '') out.push(invalidValue(fld.child('uid'), r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers++;
  }
  if (controllers > 1) out.push(invalidValue(fld, new (class {})(), 'Only one reference can have Controller set to true'));
  return out;
}

/** Options of {@link validateObjectMeta}. */
export interface ObjectMetaRules {
  namespaced: boolean;
  /** The resource's name rule (DNS subdomain for most). */
  name: NameValidator;
}

/** ValidateObjectMeta: the metadata of a new object. */
export function validateObjectMeta(meta: Obj, rules: ObjectMetaRules, fld: FieldPath = path('metadata')): FieldError[] {
  const out: FieldError[] = [];
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName !== '') for (const m of rules.name(generateName, true)) out.push(invalidValue(fld.child('generateName'), generateName, m));
  if (name === '') out.push(required(fld.child('name'), 'name or generateName is required'));
  else for (const m of rules.name(name, false)) out.push(invalidValue(fld.child('name'), name, m));
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (rules.namespaced) {
    if (namespace === '') out.push(required(fld.child('namespace'), ''));
    else for (const m of isDNS1123Label(namespace)) out.push(invalidValue(fld.child('namespace'), namespace, m));
  } else if (namespace !== '') out.push(forbiddenField(fld.child('namespace'), 'not allowed on this type'));
  if (typeof meta.generation === 'number' && meta.generation < 0) out.push(invalidValue(fld.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  out.push(...validateLabels(stringMap(meta.labels), fld.child('labels')));
  out.push(...validateAnnotations(stringMap(meta.annotations), fld.child('annotations')));
  if (Array.isArray(meta.ownerReferences)) out.push(...validateOwnerReferences(meta.ownerReferences, fld.child('ownerReferences')));
  if (Array.isArray(meta.finalizers)) out.push(...validateFinalizers(meta.finalizers, fld.child('finalizers')));
  return out;
}

/** ValidateObjectMetaUpdate: the new metadata, and what may not change from the old. */
export function validateObjectMetaUpdate(meta: Obj, old: Obj, rules: ObjectMetaRules, fld: FieldPath = path('metadata')): FieldError[] {
  const out = validateObjectMeta(meta, rules, fld);
  // Finalizers may only go away once deletion started.
  if (old.deletionTimestamp !== undefined && old.deletionTimestamp !== null) {
    const before = new Set((Array.isArray(old.finalizers) ? old.finalizers : []).map(String));
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).map(String).filter((f) => !before.has(f));
    if (added.length > 0) out.push(forbiddenField(fld.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added).text}`));
  }
  const immutable = (key: string): void => {
    if (JSON.stringify(meta[key] ?? null) !== JSON.stringify(old[key] ?? null)) out.push(invalidValue(fld.child(key), meta[key] ?? '', 'field is immutable'));
  };
  immutable('name');
  immutable('namespace');
  immutable('uid');
  immutable('creationTimestamp');
  immutable('deletionTimestamp');
  immutable('deletionGracePeriodSeconds');
  return out;
}
