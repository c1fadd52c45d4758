/**
 * Validation of object metadata, as every registry of kube-apiserver runs it
 * (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, ValidateObjectMetaAccessor and
 * ValidateObjectMetaAccessorUpdate; k8s.io/apiserver/pkg/registry/rest/update.go, validateCommonFields):
 * generateName and name by the kind's name rule, the namespace, a non-negative generation, label keys and
 * values, annotation keys and their total size, owner references, finalizer names (orphan and
 * foregroundDeletion not both) and, on updates, immutable name, namespace and uid and no new finalizers on
 * an object being deleted. Built-in kinds also require non-standard finalizers to be domain-qualified
 * (k8s.io/kubernetes/pkg/apis/core/validation, validateKubeFinalizerName). Labels and annotations are checked
 * in the order the object lists them (upstream: Go map order, which varies).
 */
import { child, forbidden, index, invalidRendered, invalidValue, required, tooLong, type FieldError } from './field-errors.ts';
import { isDns1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './name-validation.ts';

type Obj = Record<string, unknown>;

// TotalAnnotationSizeLimitB: keys and values of all annotations together.
const totalAnnotationSizeLimitB = 256 * 1024;
// BannedOwners: objects of these kinds may not own others.
const bannedOwners = new Set(['/v1, Kind=Event']);
// The finalizers Kubernetes itself defines (helper.IsStandardFinalizerName).
const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : []);
const entries = (v: unknown): Array<[string, string]> => (isObj(v) ? Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : String(x)]) : []);

/** Go's %#v of a []string. */
function goStrings(list: readonly string[]): string {
  return `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;
}

/** Go's %#v of an owner reference (pointers shown by their value: Go prints their address). */
function goOwnerReference(r: Obj): string {
  const ptr = (v: unknown): string => (typeof v === 'boolean' ? `(*bool)(${String(v)})` : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${JSON.stringify(text(r.apiVersion))}, Kind:${JSON.stringify(text(r.kind))}, Name:${JSON.stringify(text(r.name))}, UID:${JSON.stringify(text(r.uid))}, Controller:${ptr(r.controller)}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
}

/** ValidateLabels. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(invalidValue(path, k, m));
    for (const m of isValidLabelValue(v)) errs.push(invalidValue(path, v, m));
  }
  return errs;
}

/** ValidateAnnotations: keys are qualified names (checked lower-cased), at most 256 KiB in all. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalidValue(path, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > totalAnnotationSizeLimitB) errs.push(tooLong(path, totalAnnotationSizeLimitB));
  return errs;
}

/** ValidateOwnerReferences: each reference complete and not to a banned kind; at most one controller. */
export function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = Array.isArray(refs) ? refs.filter(isObj) : [];
  let controller: string | undefined;
  for (const r of list) {
    const apiVersion = text(r.apiVersion);
    const parts = apiVersion.split('/');
    // schema.ParseGroupVersion: "v1", "group/version"; anything else parses to nothing.
    const version = parts.length === 1 ? parts[0]! : parts.length === 2 ? parts[1]! : '';
    const group = parts.length === 2 ? parts[0]! : '';
    if (version === '') errs.push(invalidValue(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (text(r.kind) === '') errs.push(invalidValue(child(path, 'kind'), text(r.kind), 'kind must not be empty'));
    if (text(r.name) === '') errs.push(invalidValue(child(path, 'name'), text(r.name), 'name must not be empty'));
    if (text(r.uid) === '') errs.push(invalidValue(child(path, 'uid'), text(r.uid), 'uid must not be empty'));
    const gvk = `${group}/${version}, Kind=${text(r.kind)}`;
    if (bannedOwners.has(gvk)) errs.push(invalidRendered(path, goOwnerReference(r), `${gvk} is disallowed from being an owner`));
    if (r.controller === true) {
      if (controller === undefined) controller = text(r.name);
      else {
        const detail = `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${text(r.name)}`;
        errs.push(invalidRendered(path, `[]v1.OwnerReference{${list.map(goOwnerReference).join(', ')}}`, detail));
      }
    }
  }
  return errs;
}

/** ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const list = strings(finalizers);
  const errs: FieldError[] = [];
  for (const f of list) for (const m of isQualifiedName(f)) errs.push(invalidValue(path, f, m));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalidRendered(path, goStrings(list), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** validateKubeFinalizerName of built-in kinds: a finalizer without a domain must be a standard one. */
export function validateKubeFinalizerNames(finalizers: unknown, path: string): FieldError[] {
  return strings(finalizers).flatMap((f, i) => (!f.includes('/') && !standardFinalizers.has(f) ? [invalidValue(index(path, i), f, 'name is neither a standard finalizer name nor is it fully qualified')] : []));
}

/**
 * ValidateObjectMetaAccessor: the metadata of an object being created (its name already generated from
 * generateName), `nameFn` being the kind's name rule.
 */
export function validateObjectMetaAccessor(meta: Obj, requiresNamespace: boolean, nameFn: NameValidator, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = text(meta.generateName);
  if (generateName !== '') for (const m of nameFn(generateName, true)) errs.push(invalidValue(child(path, 'generateName'), generateName, m));
  const name = text(meta.name);
  if (name === '') errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else for (const m of nameFn(name, false)) errs.push(invalidValue(child(path, 'name'), name, m));
  const namespace = text(meta.namespace);
  if (requiresNamespace) {
    if (namespace === '') errs.push(required(child(path, 'namespace')));
    else for (const m of isDns1123Label(namespace)) errs.push(invalidValue(child(path, 'namespace'), namespace, m));
  } else if (namespace !== '') errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(invalidValue(child(path, 'generation'), meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, child(path, 'finalizers')));
  return errs;
}

/**
 * ValidateObjectMetaAccessorUpdate: the metadata of an update. The server keeps resourceVersion,
 * generation and the timestamps itself, so only what a client can still change is checked here.
 */
export function validateObjectMetaAccessorUpdate(meta: Obj, old: Obj, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp !== undefined && old.deletionTimestamp !== null) {
    const before = new Set(strings(old.finalizers));
    const added = [...new Set(strings(meta.finalizers).filter((f) => !before.has(f)))].sort();
    if (added.length > 0) errs.push(forbidden(child(path, 'finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added)}`));
  }
  for (const k of ['name', 'namespace', 'uid'] as const) {
    if (text(meta[k]) !== text(old[k])) errs.push(invalidValue(child(path, k), text(meta[k]), 'field is immutable'));
  }
  errs.push(...validateLabels(meta.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  return errs;
}

/** ValidateLabelSelector: matchLabels as labels; matchExpressions with a valid operator, values as it requires, a qualified key. */
export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  if (!isObj(selector)) return [];
  const errs = validateLabels(selector.matchLabels, child(path, 'matchLabels'));
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  exprs.forEach((e, i) => {
    const p = index(child(path, 'matchExpressions'), i);
    const expr = isObj(e) ? e : {};
    const values = strings(expr.values);
    const op = text(expr.operator);
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(required(child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(forbidden(child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else errs.push(invalidValue(child(p, 'operator'), op, 'not a valid selector operator'));
    for (const m of isQualifiedName(text(expr.key))) errs.push(invalidValue(child(p, 'key'), text(expr.key), m));
  });
  return errs;
}
