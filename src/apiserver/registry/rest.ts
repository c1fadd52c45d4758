/**
 * What the generic registry does to every object before it is stored: `apiserver/pkg/registry/rest`
 * BeforeCreate and BeforeUpdate (system metadata, generated names, the strategy's preparation,
 * validation of metadata and of the kind), and the final form an object is stored in (defaults as they
 * apply on every read, and the Go struct's encoding for built-in kinds).
 */
import { convertEvent } from './events/conversion.ts';
import { randomUUID } from 'node:crypto';
import { invalid } from '../status.ts';
import { customResourcesOf, dropEmptyMetadata, generateName, isObject, metaOf, specChanged } from '../object-meta.ts';
import type { ApiResource } from '../resources.ts';
import { apiVersionString } from '../resources.ts';
import { structOfKind } from '../schema/scheme.ts';
import { decodeTyped } from '../schema/typed-json.ts';
import { setDefaults } from './defaults.ts';
import { convertCustomResource } from './apiextensions/custom-resource-schema.ts';
import { convertHorizontalPodAutoscaler } from './autoscaling/conversion.ts';
import { prepareNamespaceForUpdate, validateNamespaceCreate, validateNamespaceUpdate } from './core/namespace.ts';
import { strategyFor, type StrategyContext } from './strategy.ts';
import { causesOf, type FieldError } from './validation/field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/object-meta.ts';

type Obj = Record<string, unknown>;

function isNamespaces(r: ApiResource): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

/** The kind's group and name for 422 answers. */
function rejectIfInvalid(r: ApiResource, name: string, errors: readonly FieldError[]): void {
  // A kind stored as another group's is validated as that group's internal type (events.k8s.io Events
  // are reported as `Event "name" is invalid`).
  if (errors.length > 0) throw invalid(r.storage?.group ?? r.group, r.kind, name, causesOf(errors));
}

// Resources whose status a create keeps (nodes register with theirs).
const keepsStatusOnCreate: ReadonlySet<string> = new Set(['nodes']);

/**
 * BeforeCreate: namespace, generated name, uid, creation time, generation, status cleared, the
 * strategy's preparation, then validation (422). Returns the object's name.
 */
export function beforeCreate(r: ApiResource, obj: Obj, o: { namespace: string; now: string; ctx: StrategyContext }): string {
  const meta = metaOf(obj);
  if (r.namespaced) meta.namespace = o.namespace;
  else delete meta.namespace;
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = generateName(meta.generateName, o.ctx.random);
  meta.uid = o.ctx.newUid?.() ?? randomUUID();
  meta.creationTimestamp = o.now;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (r.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  if (r.hasStatus && !(r.group === '' && keepsStatusOnCreate.has(r.resource))) delete obj.status;
  const strategy = strategyFor(r);
  strategy.prepareForCreate?.(obj, o.ctx);
  const name = typeof meta.name === 'string' ? meta.name : '';
  // A custom resource's metadata errors are reported with its schema's (the caller's).
  const metaErrors = r.schema === undefined ? validateObjectMeta(meta, { namespaced: r.namespaced, name: strategy.name }) : [];
  // A CRD's are reported with its spec's and status's (ValidateCustomResourceDefinition: metadata first).
  if (metaErrors.length > 0 && r.group === 'apiextensions.k8s.io' && r.resource === 'customresourcedefinitions') {
    throw invalid(r.group, r.kind, name, [...causesOf(metaErrors), ...customResourcesOf(obj).causes]);
  }
  rejectIfInvalid(r, name, [...metaErrors, ...(strategy.validate?.(obj) ?? [])]);
  if (isNamespaces(r)) {
    const causes = validateNamespaceCreate(obj);
    if (causes.length > 0) throw invalid(r.group, r.kind, name, causes);
  }
  return name;
}

/**
 * The deployment strategy also counts a change of annotations as a new generation: they are copied to
 * the ReplicaSets (pkg/registry/apps/deployment/strategy.go, PrepareForUpdate).
 */
function annotationsBumpGeneration(r: ApiResource, oldMeta: Obj, meta: Obj): boolean {
  if (r.group !== 'apps' || r.resource !== 'deployments') return false;
  const norm = (v: unknown): string => JSON.stringify(isObject(v) && Object.keys(v).length > 0 ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : {});
  return norm(oldMeta.annotations) !== norm(meta.annotations);
}

/**
 * BeforeUpdate of the main resource or /status: what the write may change (status only through
 * /status; spec not through /status), system metadata from the old object, generation bumped when
 * the spec changed, the strategy's preparation, then validation (422). Returns the object to store.
 */
export function beforeUpdate(r: ApiResource, candidate: Obj, old: Obj, o: { subresource: string | undefined; ctx: StrategyContext }): Obj {
  const strategy = strategyFor(r);
  const own = o.subresource === undefined ? undefined : strategy.subresources?.[o.subresource];
  let next: Obj;
  if (own !== undefined) {
    next = own.prepareForUpdate(candidate, old, o.ctx);
  } else if (o.subresource === 'status') {
    if (r.custom) {
      // Custom resources: a status update changes status (and managedFields) only.
      next = structuredClone(old);
      if (candidate.status === undefined) delete next.status;
      else next.status = candidate.status;
      const managed = metaOf(candidate).managedFields;
      if (managed !== undefined) metaOf(next).managedFields = managed;
    } else {
      // Built-in status strategies keep the old spec; the rest comes from the request. The stored spec itself:
      // nothing below changes it, and storing it again shares it (storageForm's `stored`).
      next = candidate;
      if (old.spec === undefined) delete next.spec;
      else next.spec = old.spec;
      strategy.prepareForStatusUpdate?.(next, old, o.ctx);
    }
  } else if (o.subresource === 'finalize') {
    // namespaces/finalize writes spec.finalizers only.
    next = candidate;
    prepareNamespaceForUpdate('finalize', old, next);
  } else {
    next = candidate;
    if (r.hasStatus && r.resource !== 'customresourcedefinitions') {
      if (old.status === undefined) delete next.status;
      else next.status = structuredClone(old.status);
    }
    strategy.prepareForUpdate?.(next, old, o.ctx);
  }
  const meta = metaOf(next);
  const oldMeta = metaOf(old);
  // The request's namespace fills an object that names none.
  if (r.namespaced && (meta.namespace === undefined || meta.namespace === '')) meta.namespace = oldMeta.namespace;
  if (meta.name === undefined || meta.name === '') meta.name = oldMeta.name;
  if (oldMeta.generation === undefined) delete meta.generation;
  else meta.generation = oldMeta.generation;
  if (meta.uid === undefined || meta.uid === '') meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp !== undefined) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (o.subresource === undefined && r.tracksGeneration && (specChanged(r, old, next) || annotationsBumpGeneration(r, oldMeta, meta))) meta.generation = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
  const rules = { namespaced: r.namespaced, name: strategy.name };
  // The generic registry and the strategy both check the metadata update rules (their errors repeat).
  const errors = r.schema === undefined ? [...validateObjectMetaUpdate(meta, oldMeta, rules), ...validateObjectMetaUpdate(meta, oldMeta, rules)] : [];
  if (own !== undefined) errors.push(...own.validateUpdate(next, old));
  else if (o.subresource === 'status') errors.push(...(strategy.validateStatusUpdate?.(next, old) ?? []));
  else if (o.subresource === undefined) errors.push(...(strategy.validateUpdate?.(next, old) ?? strategy.validate?.(next) ?? []));
  const name = typeof meta.name === 'string' ? meta.name : '';
  rejectIfInvalid(r, name, errors);
  if (isNamespaces(r)) {
    const causes = validateNamespaceUpdate(o.subresource, next);
    if (causes.length > 0) throw invalid(r.group, r.kind, name, causes);
  }
  return next;
}

/**
 * A custom resource written through another version than its storage version, converted to the storage
 * version (strategy None): pruned to the storage version's schema and given its defaults, as the CR
 * handler's storage codec does (apiextensions-apiserver pkg/apiserver/customresource_handler.go).
 */
export function toStorageVersion(r: ApiResource, obj: Obj): Obj {
  if (r.storage === undefined || r.storage.version === '' || (r.storage.version === r.version && (r.storage.group ?? r.group) === r.group)) return obj;
  if (!r.custom) return convertBuiltin(r, obj, r.storage.version, r.storage.group);
  return convertCustomResource(obj, apiVersionString(r.group, r.storage.version), r.storage.schema, true);
}

/**
 * A built-in object converted to another served version of its kind, with that version's defaults and
 * in its Go struct's encoding (the decode into the target version's struct upstream). Kinds served in
 * a single version are returned as they are.
 */
export function convertBuiltin(r: ApiResource, obj: Obj, version: string, group = r.group): Obj {
  const apiVersion = apiVersionString(group, version);
  if (obj.apiVersion === apiVersion) return obj;
  if (r.kind === 'Event' && (r.group === '' || r.group === 'events.k8s.io')) {
    const converted = convertEvent(obj, apiVersion);
    const s = structOfKind(apiVersion, 'Event');
    return s === undefined ? converted : decodeTyped(s, converted);
  }
  if (r.group !== 'autoscaling' || r.kind !== 'HorizontalPodAutoscaler') return obj;
  const converted = convertHorizontalPodAutoscaler(obj, apiVersion);
  setDefaults({ ...r, version }, converted);
  const s = structOfKind(apiVersion, r.kind);
  return s === undefined ? converted : decodeTyped(s, converted);
}

/**
 * The form an object is stored in: its defaults (they apply again on every read upstream) and, for
 * built-in kinds, the encoding of its Go struct. `stored` is the stored version an update replaces, in
 * this same version: the parts the object shares with it (the same objects) are in stored form already
 * and are not encoded again (decodeTyped's twin).
 */
export function storageForm(r: ApiResource, obj: Obj, stored?: Obj): Obj {
  setDefaults(r, obj);
  // Custom resources are not passed through a Go struct: their empty metadata collections are dropped here.
  dropEmptyMetadata(obj);
  const s = structOfKind(apiVersionString(r.group, r.version), r.kind);
  if (s === undefined) return obj;
  const typed = decodeTyped(s, obj, stored);
  return typed;
}
