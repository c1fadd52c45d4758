/**
 * CREATE: preparing a new object (type check, namespace, name or generateName, uid, timestamps,
 * generation, create-time defaults) and committing it, including the CRD side effect of starting to
 * serve its custom resources. Also used by create-on-update, server-side apply of a missing object and
 * the server's seeding of initial objects.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyCreateDefaults, podQOSClass, type ServiceAllocator } from '../defaults.ts';
import { acceptedCrdStatus, customResourcesOf, dropEmptyMetadata, generateName, isObject, metaOf, validateName } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { alreadyExists, badRequest, invalid, methodNotAllowed, notFound, requiredCause } from '../status.ts';
import type { Storage } from '../storage.ts';
import { checkCustomResourceType, checkType, decodeObject } from './request-body.ts';
import { encodeStored, send } from './response.ts';
import { crdGroupResource, namespacesStore, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunOf, fieldManager } from './write-options.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { prepareNamespaceForCreate, validateNamespaceCreate } from '../registry/core/namespace.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { admitCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { toCauses } from '../registry/field-errors.ts';
import { duplicateFields, fieldProblems, fieldValidationOf, strictDecodingError, warningHeaders } from '../registry/field-validation.ts';

/** 404 unless the target's namespace exists (namespaced resources only). */
export function requireNamespace(storage: Storage, t: Target): void {
  if (!t.r.namespaced) return;
  if (storage.get(namespacesStore, t.namespace) === undefined) throw notFound({ group: '', resource: 'namespaces' }, t.namespace);
}

/**
 * Create-time strategy: resources with a status subresource start with an empty status (nodes keep
 * theirs, as upstream), plus the few defaults clients commonly rely on.
 */
function createDefaults(r: ApiResource, obj: Obj, allocator: ServiceAllocator): void {
  if (r.hasStatus && !(r.group === '' && r.resource === 'nodes')) delete obj.status;
  if (r.group === '' && r.resource === 'namespaces') {
    prepareNamespaceForCreate(obj);
  } else if (r.group === '' && r.resource === 'pods') {
    obj.status = { phase: 'Pending', qosClass: podQOSClass(obj.spec) };
  } else if (r.group === '' && r.resource === 'persistentvolumeclaims') {
    obj.status = { phase: 'Pending' };
  } else if (r.group === 'apps' && (r.resource === 'deployments' || r.resource === 'replicasets' || r.resource === 'statefulsets')) {
    if (isObject(obj.spec) && obj.spec.replicas === undefined) obj.spec.replicas = 1;
  } else if (r.group === '' && r.resource === 'secrets') {
    obj.type ??= 'Opaque';
  }
  applyCreateDefaults(r, obj, allocator);
}

/**
 * Prepares a new object for storage: names, namespace, uid, timestamps, defaults, and for custom resources
 * the schema's pruning, defaulting and validation. Throws on invalid input; `unknown` lists pruned fields.
 */
export function prepareCreate(scope: RequestScope, t: Target, obj: Obj): { name: string; obj: Obj; unknown: string[] } {
  checkType(scope.registry, t, obj);
  const meta = metaOf(obj);
  if (t.r.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = t.namespace;
  } else delete meta.namespace;
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = generateName(meta.generateName);
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (name === '') throw invalid(t.r.group, t.r.kind, '', [requiredCause('metadata.name', 'name or generateName is required')]);
  const causes = validateName(t.r, name);
  if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
  meta.uid = randomUUID();
  meta.creationTimestamp = scope.now();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (t.r.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  dropEmptyMetadata(obj);
  createDefaults(t.r, obj, scope.allocator);
  if (t.r.group === '' && t.r.resource === 'namespaces') {
    const nsCauses = validateNamespaceCreate(obj);
    if (nsCauses.length > 0) throw invalid(t.r.group, t.r.kind, name, nsCauses);
  }
  let unknown: string[] = [];
  if (t.r.schema !== undefined) {
    const admitted = admitCustomResource(t.r.schema, obj, undefined, { validate: scope.config.schemaValidation !== false });
    unknown = admitted.unknown;
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, name, toCauses(admitted.errors));
  }
  return { name, obj, unknown };
}

/**
 * Applies fieldValidation to a write's unknown and duplicate fields: Strict fails with 400, Warn sets Warning
 * headers on `res` (also kept when the write then fails), Ignore does nothing.
 */
export function checkFields(t: Target, q: URLSearchParams, res: ServerResponse, body: Buffer | undefined, unknown: readonly string[]): void {
  const mode = fieldValidationOf(q);
  if (mode === 'Ignore') return;
  const text = body?.toString('utf8') ?? '';
  const problems = fieldProblems(unknown, text.trimStart().startsWith('{') ? duplicateFields(text) : []);
  if (problems.length === 0) return;
  if (mode === 'Strict') throw strictDecodingError(t.r.kind, t.r.version, problems);
  res.setHeader('Warning', warningHeaders(problems));
}

/**
 * Final checks and the write of a new object. `manage` records managedFields (trackUpdate for
 * ordinary creates; identity when server-side apply already did). Returns the encoded object.
 */
export function commitCreate(scope: RequestScope, t: Target, name: string, obj: Obj, dryRun: boolean, manage: (o: Obj) => Obj): string {
  requireNamespace(scope.storage, t);
  const store = storeOf(t);
  scope.access.checkRbacWrite(scope.user, store, t.namespace, obj, undefined);
  const key = objectKey(t.namespace, name);
  if (scope.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
  const final = manage(obj);
  let crdEntries: ApiResource[] | undefined;
  if (store === crdGroupResource) {
    const { entries, causes } = customResourcesOf(final, scope.storage.revision + 1);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
    final.status = acceptedCrdStatus(final, scope.now());
    crdEntries = entries;
  }
  if (dryRun) return JSON.stringify(final);
  const stored = scope.storage.write(store, key, 'ADDED', final);
  if (crdEntries !== undefined) scope.registry.setCustomResource(name, crdEntries);
  return encodeStored(t, stored);
}

/** Records an Update operation of `manager` in a new object's managedFields. */
export function createTracker(scope: RequestScope, t: Target, manager: string): (o: Obj) => Obj {
  return (o) => trackUpdate(undefined, o, { manager, now: scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
}

/** Serves POST on a collection: 201 with the created object. */
export async function createResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  if (t.subresource !== undefined) throw methodNotAllowed();
  const dryRun = dryRunOf(q);
  fieldValidationOf(q);
  const decoded = decodeObject(req, body, t.r.kind);
  checkCustomResourceType(t, decoded);
  admitNamespaceLifecycle(scope.storage, { operation: 'CREATE', group: t.r.group, resource: t.r.resource, namespace: t.namespace, name: '', object: decoded });
  let prepared: { name: string; obj: Obj; unknown: string[] };
  try {
    prepared = prepareCreate(scope, t, decoded);
  } catch (err) {
    // Warnings about the body are sent with the failure too.
    checkFields(t, q, res, body, []);
    throw err;
  }
  checkFields(t, q, res, body, prepared.unknown);
  // Mutating webhooks see the defaulted object; what they change is defaulted again.
  const mutated = await mutateWrite(scope, t, 'CREATE', q, res, prepared.obj, undefined);
  if (mutated !== undefined) prepared = prepareCreate(scope, t, mutated);
  await validateWrite(scope, t, 'CREATE', q, res, prepared.obj, undefined);
  send(res, 201, commitCreate(scope, t, prepared.name, prepared.obj, dryRun, createTracker(scope, t, fieldManager(q, req))));
}
