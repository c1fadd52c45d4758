/**
 * Server-side apply, as kube-apiserver runs `application/apply-patch+yaml` requests
 * (sigs.k8s.io/structured-merge-diff merge.Updater.Apply plus the apiserver's fieldmanager layers).
 *
 * The applied configuration is merged into the live object through the merge schema (maps field by
 * field, associative lists by their keys, sets by value, everything else atomically); the manager's
 * Apply entry becomes exactly the configuration's field set; fields it applied last time and dropped
 * now are removed from the object unless another manager still owns them; and changing a field another
 * manager owns is a conflict unless forced, in which case the field changes hands.
 */
import { ApplyConflictError, badPatch, PatchError, type ApplyConflict } from './errors.ts';
import { comparePaths, FieldSet, isPrefix, pathToString, type FieldPath } from './fieldpath.ts';
import { cloneJson, isObject, jsonEqual, setMember, type JsonObject } from './json-value.ts';
import {
  applyFieldSet, compareObjects, decodeManagedFields, describeOwner, entryIdentity, groupKindOf, listItemElement,
  trackUpdate, withManagedFields, withoutIgnoredFields, type ManagerEntry,
} from './managed-fields.ts';
import { fieldSchema, schemaFor, type FieldSchema, type ListSchema } from './patch-merge-keys.ts';

/** Options of {@link applyServerSideApply}. */
export interface ApplyOptions {
  /** The field manager (`?fieldManager=`); kubectl uses `kubectl` by default. */
  readonly manager: string;
  /** Take conflicting fields from their owners instead of failing (`?force=true`). */
  readonly force: boolean;
  /** Time recorded in the manager's entry (RFC 3339). */
  readonly now: string;
  /** `group/version` of the endpoint; the applied object must declare the same apiVersion. */
  readonly apiVersion: string;
  /** `status` when applying to the status subresource. */
  readonly subresource?: string;
}

/** What {@link checkAppliedConfiguration} holds an applied object to. */
export interface AppliedTypeOptions {
  /** `group/version` of the endpoint; the applied object must declare the same apiVersion. */
  readonly apiVersion: string;
  /** The kind the endpoint serves; the applied object must declare it (not checked when absent). */
  readonly kind?: string;
  /**
   * Every kind served in `apiVersion` (what the apiserver's type converter knows): a kind among them
   * other than `kind` fails to merge, a kind outside them has no type. Defaults to `kind` alone.
   */
  readonly servedKinds?: readonly string[];
}

/** `schema.GroupVersionKind.String()`: `group/version, Kind=kind` (`/v1, Kind=Pod` for the core group). */
function gvkString(apiVersion: string, kind: string): string {
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${kind}`;
}

/**
 * The checks kube-apiserver's structured-merge manager makes of an applied configuration before
 * merging it (fieldmanager `structuredMergeManager.Apply`, in this order): the apiVersion must be the
 * endpoint's (400, also when it is missing — the apiVersion is never taken from the URL), managedFields
 * must be absent (400), and the kind must have a type in that version and be the endpoint's (500 with
 * no reason, as an untyped error surfaces).
 *
 * Where upstream prints the Go addresses of the two type references in the "expected objects of the
 * same type" message, this names the two kinds.
 *
 * @throws {PatchError} with the status code, reason and message kube-apiserver answers.
 */
export function checkAppliedConfiguration(applied: Record<string, unknown>, options: AppliedTypeOptions): void {
  const patchVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  if (patchVersion !== options.apiVersion) {
    throw badPatch(`Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${options.apiVersion}`);
  }
  const meta = isObject(applied.metadata) ? applied.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) throw badPatch('metadata.managedFields must be nil');
  if (options.kind === undefined) return;
  const kind = text(applied.kind);
  if (!(options.servedKinds ?? [options.kind]).includes(kind)) {
    // objectGVKNN of the patch: its own namespace and name (empty when it names none).
    const nn = `${text(meta.namespace)}/${text(meta.name)}`;
    const gvk = gvkString(options.apiVersion, kind);
    throw new PatchError(500, '', `failed to create typed patch object (${nn}; ${gvk}): no corresponding type for ${gvk}`);
  }
  if (kind !== options.kind) throw new PatchError(500, '', `failed to merge config: expected objects of the same type, but got ${options.kind} and ${kind}`);
}

// Name upstream gives the owner of fields that existed before the object's first tracked write.
const beforeFirstApplyManager = 'before-first-apply';

/**
 * Applies `applied` as the configuration of `options.manager` onto `live` (`undefined` to create) and
 * returns the new object with its managedFields. Inputs are never modified.
 *
 * @throws {ApplyConflictError} when the configuration changes fields other managers own and `force` is false.
 * @throws {PatchError} 400 when the configuration declares another apiVersion or carries managedFields.
 * @example
 * const obj = applyServerSideApply(live, config, { manager: 'kubectl', force: false, now: new Date(clock.now()).toISOString(), apiVersion: 'apps/v1' });
 */
export function applyServerSideApply(live: Record<string, unknown> | undefined, applied: Record<string, unknown>, options: ApplyOptions): Record<string, unknown> {
  checkAppliedConfiguration(applied, options);
  const schema = schemaFor(groupKindOf(applied, options.apiVersion));

  let entries = decodeManagedFields(live);
  const liveContent = withoutManagedFields(live ?? {});
  if (live !== undefined && entries.length === 0) {
    // An object nobody tracked yet: its current fields go to a placeholder owner first.
    entries = decodeManagedFields(trackUpdate(undefined, liveContent, { manager: beforeFirstApplyManager, now: options.now, apiVersion: options.apiVersion }));
  }
  const config = withoutManagedFields(applied);
  validateConfig(config, schema, applied, options.apiVersion);

  let result: JsonObject;
  try {
    result = applyConfig(liveContent, entries, config, schema, options, options.force);
  } catch (err) {
    // kubectl's own upgrade path from client-side apply: conflicts on fields the last-applied
    // annotation says kubectl set itself, and nobody changed since, are taken over silently.
    const allowed = options.manager === kubectlManager && err instanceof ConflictsFound ? allowedConflictsFromLastApplied(liveContent, schema) : undefined;
    if (allowed === undefined || !(err instanceof ConflictsFound)) throw err instanceof ConflictsFound ? err.toError() : err;
    const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw new ConflictsFound(remaining).toError();
    result = applyConfig(liveContent, entries, config, schema, options, true);
  }
  return syncLastApplied(result, applied, options.manager);
}

// Manager name kubectl uses for `apply --server-side`; upstream ties the last-applied handling to it.
const kubectlManager = 'kubectl';
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

type PathConflict = ApplyConflict & { readonly path: FieldPath };

/** Conflicts found while applying, kept with their paths until they become an {@link ApplyConflictError}. */
class ConflictsFound extends Error {
  readonly conflicts: readonly PathConflict[];

  constructor(conflicts: readonly PathConflict[]) {
    super('apply conflicts');
    this.conflicts = conflicts;
  }

  toError(): ApplyConflictError {
    const sorted = [...this.conflicts].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : comparePaths(a.path, b.path)));
    return new ApplyConflictError(sorted.map(({ manager, field, owner }) => ({ manager, field, owner })));
  }
}

/** merge.Updater.Apply: merge, prune, check ownership, record the manager's new set. */
function applyConfig(liveContent: JsonObject, decoded: readonly ManagerEntry[], config: JsonObject, schema: FieldSchema | undefined, options: ApplyOptions, force: boolean): JsonObject {
  const entries = decoded.map((e) => ({ ...e }));
  const subresource = options.subresource ?? '';
  const identity = entryIdentity({ manager: options.manager, operation: 'Apply', apiVersion: options.apiVersion, subresource });
  const previous = entries.find((e) => entryIdentity(e) === identity);
  const others = entries.filter((e) => e !== previous);
  const configSet = withoutIgnoredFields(applyFieldSet(config, schema), options.subresource, schema?.kind === 'map' && schema.ownsStatus === true);

  let merged = mergeValues(liveContent, config, schema) as JsonObject;
  if (previous !== undefined) merged = prune(merged, config, previous.set, configSet, others, schema);

  // Fields outside this endpoint's reach (status through the main resource, ...) neither conflict nor move.
  const comparison = compareObjects(liveContent, merged, schema);
  const changed = withoutIgnoredFields(comparison.added.union(comparison.modified), options.subresource, schema?.kind === 'map' && schema.ownsStatus === true);
  const removed = withoutIgnoredFields(comparison.removed, options.subresource, schema?.kind === 'map' && schema.ownsStatus === true);
  const conflicts: PathConflict[] = [];
  for (const entry of others) {
    for (const path of entry.set.intersection(changed)) {
      conflicts.push({ manager: entry.manager, field: pathToString(path), owner: describeOwner(entry), path });
    }
  }
  if (conflicts.length > 0 && !force) throw new ConflictsFound(conflicts);
  for (const entry of others) entry.set = entry.set.difference(changed).difference(removed);

  // Upstream refreshes the entry's time only when the object changed.
  const objectChanged = !jsonEqual(liveContent, merged);
  const next: ManagerEntry = {
    manager: options.manager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    subresource,
    time: objectChanged || previous?.time === undefined ? options.now : previous.time,
    set: configSet,
  };
  return withManagedFields(merged, [...others, next]);
}

function lastAppliedOf(object: JsonObject): string | undefined {
  const meta = object.metadata;
  const annotations = isObject(meta) ? meta.annotations : undefined;
  const value = isObject(annotations) ? annotations[lastAppliedAnnotation] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Fields set by the last client-side apply and unchanged since (fieldmanager lastAppliedManager):
 * kubectl may take them over from `kubectl-client-side-apply` without a conflict.
 */
function allowedConflictsFromLastApplied(live: JsonObject, schema: FieldSchema | undefined): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied)) return undefined;
  return applyFieldSet(lastApplied, schema).difference(compareObjects(lastApplied, live, schema).modified);
}

/** kubectl's server-side apply keeps an existing last-applied annotation in step (fieldmanager lastAppliedUpdater). */
function syncLastApplied(result: JsonObject, applied: JsonObject, manager: string): JsonObject {
  if (manager !== kubectlManager || lastAppliedOf(result) === undefined) return result;
  const config = cloneJson(applied);
  if (isObject(config.metadata) && isObject(config.metadata.annotations)) delete config.metadata.annotations[lastAppliedAnnotation];
  const annotations = (result.metadata as JsonObject).annotations as JsonObject;
  annotations[lastAppliedAnnotation] = `${goJson(config)}\n`;
  return result;
}

/** JSON as Go's encoding/json writes a map: keys sorted, HTML characters escaped. */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${goString(k)}:${goJson(value[k])}`).join(',')}}`;
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value) ?? 'null';
}

function goString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Rejects configurations whose associative lists cannot be merged: an element without any key field
 * or two elements with the same key. Upstream reports these as untyped errors, hence 500.
 */
function validateConfig(config: JsonObject, schema: FieldSchema | undefined, applied: JsonObject, apiVersion: string): void {
  const fail = (path: FieldPath, detail: string): never => {
    const meta = isObject(applied.metadata) ? applied.metadata : {};
    const gvk = gvkString(apiVersion, text(applied.kind));
    throw new PatchError(500, '', `failed to create typed patch object (${text(meta.namespace)}/${text(meta.name)}; ${gvk}): ${pathToString(path)}: ${detail}`);
  };
  const visit = (node: unknown, nodeSchema: FieldSchema | undefined, path: FieldPath): void => {
    if (Array.isArray(node)) {
      if (nodeSchema?.kind !== 'list' || nodeSchema.listType === 'atomic') return;
      const seen = new Set<string>();
      node.forEach((item: unknown, index) => {
        const element = listItemElement(nodeSchema, item, index);
        if (nodeSchema.listType === 'map' && isObject(item) && element.startsWith('i:')) {
          fail(path, `element ${index}: associative list with keys has an element that omits all key fields ${JSON.stringify(nodeSchema.keys ?? [])} (and doesn't have default values for any key fields)`);
        }
        if (seen.has(element)) fail(path, `duplicate entries for key ${pathToString([element])}`);
        seen.add(element);
        visit(item, nodeSchema.items, [...path, element]);
      });
      return;
    }
    if (isObject(node) && !(nodeSchema?.kind === 'map' && nodeSchema.atomic === true)) {
      for (const [name, value] of Object.entries(node)) visit(value, fieldSchema(nodeSchema, name), [...path, `f:${name}`]);
    }
  };
  visit(config, schema, []);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function withoutManagedFields(object: JsonObject): JsonObject {
  const out = cloneJson(object);
  if (isObject(out.metadata)) delete out.metadata.managedFields;
  return out;
}

// --- merging -------------------------------------------------------------------------------------------

/** typed.Merge: `rhs` (the configuration) merged over `lhs` (the live value). */
function mergeValues(lhs: unknown, rhs: unknown, schema: FieldSchema | undefined): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return cloneJson(rhs);
  if (schema?.kind === 'list') {
    if (schema.listType === 'atomic' || !Array.isArray(lhs) || !Array.isArray(rhs)) return cloneJson(rhs);
    return mergeLists(lhs, rhs, schema);
  }
  if (isObject(lhs) && isObject(rhs) && !(schema?.kind === 'map' && schema.atomic === true)) {
    const out: JsonObject = {};
    for (const key of Object.keys(lhs)) setMember(out, key, lhs[key]);
    for (const [key, value] of Object.entries(rhs)) {
      setMember(out, key, mergeValues(Object.hasOwn(lhs, key) ? lhs[key] : undefined, value, fieldSchema(schema, key)));
    }
    return out;
  }
  return cloneJson(rhs);
}

/**
 * Merges associative lists and sets element by element. Live-only elements keep their places; shared
 * and new elements follow the configuration's order (structured-merge-diff's visitListItems).
 */
function mergeLists(lhs: unknown[], rhs: unknown[], schema: ListSchema): unknown[] {
  const lhsPEs = lhs.map((item, i) => listItemElement(schema, item, i));
  const rhsPEs = rhs.map((item, i) => listItemElement(schema, item, i));
  const observedLhs = new Map<string, unknown>();
  lhsPEs.forEach((pe, i) => { if (!observedLhs.has(pe)) observedLhs.set(pe, lhs[i]); });
  const observedRhs = new Map<string, unknown>();
  rhsPEs.forEach((pe, i) => { if (!observedRhs.has(pe)) observedRhs.set(pe, rhs[i]); });
  const sharedOrder = rhsPEs.filter((pe) => observedLhs.has(pe));
  let nextShared = sharedOrder.shift();
  const mergedRhs = new Set<string>();
  const out: unknown[] = [];
  const mergeItem = (pe: string): void => {
    const l = observedLhs.get(pe);
    const r = observedRhs.get(pe);
    out.push(schema.listType === 'set' ? cloneJson(r ?? l) : mergeValues(l, r, schema.items));
  };
  let li = 0;
  let ri = 0;
  while (li < lhsPEs.length || ri < rhsPEs.length) {
    if (li < lhsPEs.length && ri < rhsPEs.length) {
      const pe = lhsPEs[li] as string;
      if (pe === rhsPEs[ri]) {
        mergedRhs.add(pe);
        mergeItem(pe);
        li++;
        ri++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (observedRhs.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < lhsPEs.length) {
      const pe = lhsPEs[li] as string;
      if (!observedRhs.has(pe)) {
        out.push(lhs[li]);
        li++;
        continue;
      }
      if (mergedRhs.has(pe)) {
        li++;
        continue;
      }
    }
    if (ri < rhsPEs.length) {
      const pe = rhsPEs[ri] as string;
      mergedRhs.add(pe);
      mergeItem(pe);
      ri++;
      if (nextShared === pe) nextShared = sharedOrder.shift();
    }
  }
  return out;
}

// --- pruning -------------------------------------------------------------------------------------------

/**
 * Removes what the manager applied last time (`lastSet`) and no longer applies, unless some manager
 * (including the new configuration) still owns the field or something below it.
 */
function prune(merged: JsonObject, config: JsonObject, lastSet: FieldSet, configSet: FieldSet, others: readonly ManagerEntry[], schema: FieldSchema | undefined): JsonObject {
  const owned = others.reduce((acc, e) => acc.union(e.set), configSet);
  const candidates = lastSet.difference(owned).sorted().filter((path) => !owned.hasDescendant(path));
  const removed: FieldPath[] = [];
  const out = cloneJson(merged);
  for (const path of candidates) {
    if (removed.some((done) => isPrefix(done, path))) continue;
    if (removePath(out, path, schema, (container) => owned.has(container) || hasPath(config, container, schema))) removed.push(path);
  }
  return out;
}

/**
 * Removes the node at `path`. Maps and lists emptied by the removal go too, as Go's omitempty drops
 * them, unless `keep` says the container is still owned or set by the configuration.
 */
function removePath(root: JsonObject, path: FieldPath, schema: FieldSchema | undefined, keep: (container: FieldPath) => boolean): boolean {
  const parents: Array<{ container: unknown; schema: FieldSchema | undefined; element: string }> = [];
  let node: unknown = root;
  let nodeSchema = schema;
  for (const element of path) {
    parents.push({ container: node, schema: nodeSchema, element });
    const step = child(node, element, nodeSchema);
    if (step === undefined) return false;
    node = step.value;
    nodeSchema = step.schema;
  }
  for (let depth = parents.length - 1; depth >= 0; depth--) {
    const { container, schema: containerSchema, element } = parents[depth] as (typeof parents)[number];
    deleteChild(container, element, containerSchema);
    const containerPath = path.slice(0, depth);
    // Go drops empty maps and slices of omitempty fields when it encodes the object; structs stay.
    const emptiedMap = isObject(container) && Object.keys(container).length === 0 && containerSchema?.kind === 'map' && containerSchema.mapOf !== undefined;
    const emptiedList = Array.isArray(container) && container.length === 0 && containerSchema?.kind === 'list' && containerSchema.implicit !== true;
    const droppable = (emptiedMap || emptiedList) && depth > 0 && !keep(containerPath);
    if (!droppable) break;
  }
  return true;
}

/** True when `path` exists in `root` (the configuration sets it, if only to an empty value). */
function hasPath(root: unknown, path: FieldPath, schema: FieldSchema | undefined): boolean {
  let node = root;
  let nodeSchema = schema;
  for (const element of path) {
    const step = child(node, element, nodeSchema);
    if (step === undefined) return false;
    node = step.value;
    nodeSchema = step.schema;
  }
  return true;
}

function child(node: unknown, element: string, schema: FieldSchema | undefined): { value: unknown; schema: FieldSchema | undefined } | undefined {
  if (element.startsWith('f:')) {
    const name = element.slice(2);
    if (!isObject(node) || !Object.hasOwn(node, name)) return undefined;
    return { value: node[name], schema: fieldSchema(schema, name) };
  }
  if (!Array.isArray(node) || schema?.kind !== 'list') return undefined;
  const index = node.findIndex((item, i) => listItemElement(schema, item, i) === element);
  return index < 0 ? undefined : { value: node[index], schema: schema.items };
}

function deleteChild(container: unknown, element: string, schema: FieldSchema | undefined): void {
  if (element.startsWith('f:')) {
    if (isObject(container)) delete container[element.slice(2)];
    return;
  }
  if (!Array.isArray(container) || schema?.kind !== 'list') return;
  const index = container.findIndex((item, i) => listItemElement(schema, item, i) === element);
  if (index >= 0) container.splice(index, 1);
}
