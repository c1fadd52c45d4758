/**
 * Object-level rules applied on every write, as kube-apiserver's generic registry applies them:
 * name generation and validation, generation bumps, no-op detection, and CRD → resource translation.
 */
import { randomInt } from 'node:crypto';
import type { StatusCause } from '../api/meta/v1.ts';
import { storageVersionHash, type ApiResource, type PrinterColumn, type Subresource } from './resources.ts';
import { invalidCause, requiredCause } from './status.ts';
import { toCauses, type FieldError } from './registry/field-errors.ts';
import { nameIsDnsLabel, nameIsDnsSubdomain, pathSegmentName, rbacName, type NameValidator } from './registry/name-validation.ts';
import { validateKubeFinalizerNames, validateObjectMetaAccessor, validateObjectMetaAccessorUpdate } from './registry/object-meta-validation.ts';
import { customResourceSchema, type CustomResourceSchema } from './registry/apiextensions/custom-resource-schema.ts';
import { validateVersionSchema } from './registry/apiextensions/schema-props-validation.ts';
import { validateScale } from './registry/apiextensions/scale.ts';
import { conversionWebhookOf } from './registry/apiextensions/webhook-converter.ts';
import { validateCustomResourceConversion } from './registry/apiextensions/conversion-validation.ts';
import { validateCustomResourceDefinitionNames } from './registry/apiextensions/names-validation.ts';
import { goVersionsString, goVersionString, hoistedOf } from './registry/apiextensions/go-versions-format.ts';
import { compareKubeVersions } from '../discovery/builtin-mappings.ts';
import { registerCustomResourceMergeSchema, type StructuralMergeNode } from './patch/patch-merge-keys.ts';

type Obj = Record<string, unknown>;

/** Narrows to a plain JSON object. */
/** A JSON value as text: strings as they are, numbers and booleans printed, anything else ''. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]));
}

/** The object's metadata, created if missing. */
export function metaOf(obj: Obj): Obj {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as Obj;
}

// ObjectMeta's collections, all `omitempty` in k8s.io/apimachinery/pkg/apis/meta/v1/types.go.
const omitEmptyMetaFields = ['labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'] as const;

/**
 * Drops null and empty metadata collections (labels, annotations, ownerReferences, finalizers,
 * managedFields), as decoding into ObjectMeta and encoding it again does in kube-apiserver: an object
 * stored with `finalizers: []` comes back without `finalizers`.
 */
export function dropEmptyMetadata(obj: Obj): void {
  if (!isObject(obj.metadata)) return;
  const meta = obj.metadata;
  for (const k of omitEmptyMetaFields) {
    const v = meta[k];
    if (v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)) delete meta[k];
  }
}

// names.SimpleNameGenerator: 5 characters from an alphabet without vowels and look-alikes.
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * generateName + 5 random characters, as kube-apiserver's SimpleNameGenerator. `random` (a uniform draw in
 * [0, 1)) replaces the cryptographic source where runs must be replayable (the simulator's seeded server).
 */
export function generateName(base: string, random?: () => number): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[random === undefined ? randomInt(nameAlphabet.length) : Math.floor(random() * nameAlphabet.length)];
  return prefix + suffix;
}

/** The name rule of a resource's objects: RBAC names only have to be path segments, namespaces are DNS labels, everything else DNS subdomains. */
export function nameValidatorOf(r: ApiResource): NameValidator {
  if (r.group === 'rbac.authorization.k8s.io') return rbacName;
  if (r.group === '' && r.resource === 'namespaces') return nameIsDnsLabel;
  return nameIsDnsSubdomain;
}

// Groups whose validation uses apimachinery's ObjectMeta checks without the core rule for finalizer names.
const genericMetaGroups: ReadonlySet<string> = new Set(['coordination.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io']);

/** The metadata errors of an object being created (its name generated already): the generic checks, plus core's finalizer rule for built-in kinds that use it. */
export function validateCreateMeta(r: ApiResource, meta: Obj): FieldError[] {
  const errs = validateObjectMetaAccessor(meta, r.namespaced, nameValidatorOf(r));
  if (!r.custom && !genericMetaGroups.has(r.group)) errs.push(...validateKubeFinalizerNames(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

/**
 * The metadata errors of an update, as the generic registry's common checks report them (validateCommonFields:
 * the create checks with the path-segment name rule, then the update checks); custom resources repeat the
 * update checks in their own validation, so their errors appear once more, as upstream answers.
 */
export function validateUpdateMeta(r: ApiResource, meta: Obj, old: Obj): FieldError[] {
  const update = validateObjectMetaAccessorUpdate(meta, old);
  return [...validateObjectMetaAccessor(meta, r.namespaced, pathSegmentName), ...update, ...(r.custom ? update : [])];
}

/** Whether the parts of an object that drive metadata.generation differ (everything but metadata and, when it is a subresource, status). */
export function specChanged(r: ApiResource, a: Obj, b: Obj): boolean {
  const strip = (o: Obj): Obj => {
    const { metadata: _m, status, ...rest } = o;
    return r.hasStatus ? rest : { ...rest, status };
  };
  return !deepEqual(strip(a), strip(b));
}

/**
 * Whether an update changes nothing but the resourceVersion: such writes are skipped. A change of
 * managedFields alone (an apply that only adds a co-owner) is a real write, as in kube-apiserver.
 */
export function isNoop(a: Obj, b: Obj): boolean {
  const strip = (o: Obj): Obj => {
    const { resourceVersion: _rv, ...meta } = (o.metadata as Obj | undefined) ?? {};
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(a), strip(b));
}

/**
 * The served versions of a CRD and the names it defines, or the causes that make it invalid. `since` is the
 * storage revision from which the version schemas apply (objects written before are defaulted on read).
 */
export function customResourcesOf(crd: Obj, since = 0): { entries: ApiResource[]; causes: StatusCause[] } {
  const causes: StatusCause[] = [];
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const plural = typeof names.plural === 'string' ? names.plural : '';
  const kind = typeof names.kind === 'string' ? names.kind : '';
  const scope = spec.scope;
  // The metadata errors come first (ValidateObjectMeta with the CRD's name rule).
  const name = isObject(crd.metadata) ? crd.metadata.name : undefined;
  if (name !== `${plural}.${group}`) causes.push(invalidCause('metadata.name', name ?? '', `must be spec.names.plural+"."+spec.group`));
  if (group === '') causes.push(requiredCause('spec.group', ''));
  else if (!group.includes('.')) causes.push(invalidCause('spec.group', group, 'should be a domain with at least one dot'));
  if (plural === '') causes.push(requiredCause('spec.names.plural', ''));
  if (kind === '') causes.push(requiredCause('spec.names.kind', ''));
  if (scope !== 'Namespaced' && scope !== 'Cluster') causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(scope ?? '')}: supported values: "Cluster", "Namespaced"`, field: 'spec.scope' });
  causes.push(...validateCustomResourceDefinitionNames(names, 'spec.names'));
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const storageVersions = versions.filter((v) => v.storage === true).length;
  // The value is printed with %#v of the internal versions (go-versions-format.ts).
  if (storageVersions !== 1) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goVersionsString(versions)}: must have exactly one version marked as storage version`, field: 'spec.versions' });
  // PrepareForCreate sets status.storedVersions to the first storage version; without one it stays nil, and
  // every other storage version is missing from it (ValidateCustomResourceDefinitionStoredVersions).
  if (storageVersions === 0) causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: []string(nil): must have at least one stored version', field: 'status.storedVersions' });
  const hoisted = hoistedOf(versions);
  // (An update keeps the stored versions and adds the first storage version: PrepareForUpdate.)
  const stored: unknown[] = [...(isObject(crd.status) && Array.isArray(crd.status.storedVersions) ? (crd.status.storedVersions as unknown[]) : []), ...versions.filter((v) => v.storage === true).slice(0, 1).map((v) => v.name)];
  for (const v of versions) {
    if (v.storage === true && !stored.includes(v.name)) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goVersionString(v, hoisted)}: must have the storage version ${String(v.name)}`, field: 'status.storedVersions' });
  }
  if (causes.length > 0) return { entries: [], causes };
  // Identical schemas are validated once at spec.validation, as the internal version hoists them.
  const schemaOf = (v: Obj): unknown => (isObject(v.schema) ? v.schema.openAPIV3Schema : undefined);
  const identical = versions.every((v) => deepEqual(schemaOf(v), schemaOf(versions[0]!)));
  const schemas = new Map<string, CustomResourceSchema>();
  versions.forEach((v, i) => {
    const schema = schemaOf(v);
    const path = identical ? 'spec.validation.openAPIV3Schema' : `spec.versions[${i}].schema.openAPIV3Schema`;
    if (identical && i > 0) {
      const first = schemas.get(String(versions[0]!.name));
      if (first !== undefined) schemas.set(String(v.name), first);
      return;
    }
    if (!isObject(schema)) {
      causes.push(requiredCause(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      return;
    }
    const { errors, compiled } = validateVersionSchema(schema, path);
    causes.push(...toCauses(errors));
    if (compiled !== undefined) schemas.set(String(v.name), customResourceSchema(schema, compiled, since));
    const sub = isObject(v.subresources) ? v.subresources : {};
    if (isObject(sub.scale)) causes.push(...toCauses(validateScale(sub.scale, `spec.versions[${i}].subresources.scale`)));
  });
  // v1 CRDs cannot keep unknown fields at the spec level (only v1beta1 could, and no CRD here predates v1).
  causes.push(...toCauses(validateCustomResourceConversion(spec.conversion)));
  if (spec.preserveUnknownFields === true) causes.push(invalidCause('spec.preserveUnknownFields', true, 'cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  if (causes.length > 0) return { entries: [], causes };
  const entries: ApiResource[] = [];
  const storageVersion = str(versions.find((v) => v.storage === true)?.name);
  const storage = { version: storageVersion, schema: schemas.get(storageVersion) };
  const conversionWebhook = conversionWebhookOf(crd);
  for (const v of versions) {
    if (v.served !== true || typeof v.name !== 'string') continue;
    const subresourceSpec = isObject(v.subresources) ? v.subresources : {};
    // The CRD handler lists status before scale.
    const subresources: Subresource[] = [];
    if (isObject(subresourceSpec.status)) subresources.push({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
    if (isObject(subresourceSpec.scale)) subresources.push({ name: 'scale', kind: 'Scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1' });
    const printerColumns: PrinterColumn[] = (Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns.filter(isObject) : []).map((c) => {
      const col: PrinterColumn = { name: String(c.name), type: typeof c.type === 'string' ? c.type : 'string', jsonPath: typeof c.jsonPath === 'string' ? c.jsonPath : '' };
      return {
        ...col,
        ...(typeof c.description === 'string' ? { description: c.description } : {}),
        ...(typeof c.priority === 'number' ? { priority: c.priority } : {}),
        ...(typeof c.format === 'string' ? { format: c.format } : {}),
      };
    });
    const selectableFields = (Array.isArray(v.selectableFields) ? v.selectableFields.filter(isObject) : []).map((f) => (typeof f.jsonPath === 'string' ? f.jsonPath : '').replace(/^\./, ''));
    registerCustomResourceMergeSchema({ group, version: v.name, kind }, schemaOf(v) as StructuralMergeNode | undefined, isObject(subresourceSpec.status));
    entries.push({
      group,
      version: v.name,
      resource: plural,
      singularName: typeof names.singular === 'string' && names.singular !== '' ? names.singular : kind.toLowerCase(),
      kind,
      listKind: typeof names.listKind === 'string' && names.listKind !== '' ? names.listKind : `${kind}List`,
      namespaced: scope === 'Namespaced',
      shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
      categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      subresources,
      storage,
      hasStatus: isObject(subresourceSpec.status),
      hasScale: isObject(subresourceSpec.scale),
      ...(isObject(subresourceSpec.scale) ? { scale: scaleOf(subresourceSpec.scale) } : {}),
      tracksGeneration: true,
      custom: true,
      ...(v.deprecated === true ? { deprecationWarning: typeof v.deprecationWarning === 'string' ? v.deprecationWarning : defaultDeprecationWarning(String(v.name), group, kind, versions) } : {}),
      printerColumns,
      selectableFields,
      storageVersionHash: storageVersionHash(group, storageVersion, kind),
      ...(schemas.has(v.name) ? { schema: schemas.get(v.name)! } : {}),
      ...(conversionWebhook === undefined ? {} : { conversionWebhook }),
    });
  }
  return { entries, causes };
}

/**
 * apiextensions-apiserver's defaultDeprecationWarning (customresource_handler.go): `<group>/<version> <Kind> is
 * deprecated`, and `; use <group>/<version> <Kind>` naming the highest-priority served, non-deprecated version
 * that ranks above the deprecated one (version.CompareKubeAwareVersionStrings).
 */
function defaultDeprecationWarning(version: string, group: string, kind: string, versions: readonly Obj[]): string {
  const msg = `${group}/${version} ${kind} is deprecated`;
  const better = versions
    .filter((v) => v.served === true && v.deprecated !== true && typeof v.name === 'string' && compareKubeVersions(v.name, version) < 0)
    .map((v) => String(v.name))
    .sort(compareKubeVersions);
  return better.length === 0 ? msg : `${msg}; use ${group}/${better[0]!} ${kind}`;
}

function scaleOf(s: Obj): { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } {
  return {
    specReplicasPath: String(s.specReplicasPath),
    statusReplicasPath: String(s.statusReplicasPath),
    ...(typeof s.labelSelectorPath === 'string' ? { labelSelectorPath: s.labelSelectorPath } : {}),
  };
}

/** The status kube-apiserver's CRD controllers settle on once a definition is accepted. */
export function acceptedCrdStatus(crd: Obj, now: string): Obj {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? { ...spec.names } : {};
  if (typeof names.kind === 'string') {
    names.singular ??= names.kind.toLowerCase();
    names.listKind ??= `${names.kind}List`;
  }
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const storage = versions.find((v) => v.storage === true)?.name;
  const prev = isObject(crd.status) ? crd.status : {};
  const stored = Array.isArray(prev.storedVersions) ? prev.storedVersions.map(String) : [];
  if (typeof storage === 'string' && !stored.includes(storage)) stored.push(storage);
  return {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: names,
    storedVersions: stored,
  };
}
