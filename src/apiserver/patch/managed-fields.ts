/**
 * Field ownership bookkeeping (`metadata.managedFields`), as kube-apiserver's fieldmanager does it
 * for writes that are not server-side apply: every manager owns the fields it last set or changed.
 */
import type { ManagedFieldsEntry } from '../../api/meta/v1.ts';
import { childKey, fieldElement, FieldSet, indexElement, keyElement, pathKey, valueElement, type FieldPath } from './fieldpath.ts';
import { isObject, jsonEqual, type JsonObject } from './json-value.ts';
import { fieldSchema, schemaFor, type FieldSchema, type ListSchema } from './patch-merge-keys.ts';

/** One node of an object seen through its merge schema. */
export interface FieldNode {
  readonly path: FieldPath;
  readonly value: unknown;
  /** Member of the object's field set as server-side apply computes it (leaves, list elements, ...). */
  readonly applyMember: boolean;
  /** A scalar or atomic value: a different value at the same path is a modification. */
  readonly compareValue: boolean;
  /** A Go struct that always exists: creating it is not a change anybody owns. */
  readonly implicit: boolean;
}

/** Path element of list element `item` at `index` in a list of schema `schema`. */
export function listItemElement(schema: ListSchema, item: unknown, index: number): string {
  if (schema.listType === 'set') return valueElement(item);
  if (schema.listType === 'map' && isObject(item)) {
    const key: JsonObject = {};
    for (const name of schema.keys ?? []) {
      const value = item[name] ?? schema.keyDefaults?.[name];
      if (value !== undefined && value !== null) key[name] = value;
    }
    if (Object.keys(key).length > 0) return keyElement(key);
  }
  return indexElement(index);
}

/**
 * Every node of `value` (the root excluded), keyed by {@link pathKey}-style keys. With `twin` (the other
 * side of a comparison), a field whose value is the very same one (`===`) in `twin` at the same path,
 * reached through object fields only, is left out with everything below it: an unchanged subtree is
 * neither added, removed nor modified, so a comparison need not walk it. Objects are never mutated once
 * stored, so an in-process writer that builds its update by spreading the stored object (`{ ...o, status }`)
 * shares every unchanged subtree with it, and its comparison walks only what it replaced.
 */
export function collectNodes(value: unknown, schema: FieldSchema | undefined, twin?: unknown): Map<string, FieldNode> {
  const out = new Map<string, FieldNode>();
  const visit = (node: unknown, nodeSchema: FieldSchema | undefined, path: FieldPath, key: string, entryOfMap: boolean, other: unknown): void => {
    const add = (applyMember: boolean, compareValue: boolean, implicit = false): void => {
      if (path.length > 0) out.set(key, { path, value: node, applyMember, compareValue, implicit });
    };
    if (Array.isArray(node)) {
      const list = nodeSchema?.kind === 'list' ? nodeSchema : undefined;
      if (list === undefined || list.listType === 'atomic') {
        add(true, true);
        return;
      }
      add(false, false, list.implicit === true);
      node.forEach((item: unknown, index) => {
        const element = listItemElement(list, item, index);
        const itemPath = [...path, element];
        const itemKey = childKey(key, element);
        const primitive = list.listType === 'set' || !isObject(item);
        out.set(itemKey, { path: itemPath, value: item, applyMember: true, compareValue: primitive, implicit: false });
        if (!primitive) visitFields(item as JsonObject, list.items, itemPath, itemKey, undefined);
      });
      return;
    }
    // A null is the absence of a value: nobody owns it (creationTimestamp: null of templates).
    if (node === null && path.length > 0) return;
    if (isObject(node)) {
      const map = nodeSchema?.kind === 'map' ? nodeSchema : undefined;
      if (map?.atomic === true) {
        add(true, true);
        return;
      }
      // An empty struct below the top level is a leaf of the field set (f:resources: {} of a container
      // without any); an empty top-level struct (spec: {}) is not.
      if (Object.keys(node).length === 0 && path.length > 1) {
        add(true, false);
        return;
      }
      // typed.ToFieldSet lists entries of maps with arbitrary keys, never declared (struct) fields themselves.
      add(entryOfMap, false, map?.implicit === true);
      visitFields(node, map, path, key, other);
      return;
    }
    add(true, true);
  };
  const visitFields = (node: JsonObject, nodeSchema: FieldSchema | undefined, path: FieldPath, key: string, other: unknown): void => {
    const entryOfMap = nodeSchema?.kind === 'map' && nodeSchema.mapOf !== undefined;
    const twinFields = isObject(other) ? other : undefined;
    for (const [name, child] of Object.entries(node)) {
      // The same value on both sides: nothing below it differs (see the function comment).
      if (twinFields !== undefined && child !== undefined && twinFields[name] === child && Object.hasOwn(twinFields, name)) continue;
      const element = fieldElement(name);
      visit(child, fieldSchema(nodeSchema, name), [...path, element], childKey(key, element), entryOfMap, twinFields?.[name]);
    }
  };
  visit(value, schema, [], '', false, twin);
  return out;
}

/** The field set server-side apply computes for a configuration (typed.ToFieldSet). */
export function applyFieldSet(value: unknown, schema: FieldSchema | undefined): FieldSet {
  const set = new FieldSet();
  for (const [key, node] of collectNodes(value, schema)) if (node.applyMember) set.add(node.path, key);
  return set;
}

/** What changed between two versions of an object (typed.Comparison). */
export interface Comparison {
  readonly added: FieldSet;
  readonly removed: FieldSet;
  readonly modified: FieldSet;
}

/** Compares two versions of an object node by node. */
export function compareObjects(before: unknown, after: unknown, schema: FieldSchema | undefined): Comparison {
  // Subtrees both versions share are skipped on both sides (collectNodes' twin).
  const old = collectNodes(before, schema, after);
  const now = collectNodes(after, schema, before);
  const added = new FieldSet();
  const removed = new FieldSet();
  const modified = new FieldSet();
  // An implicit node (a non-pointer Go struct, a list without omitempty) is in every decoded object whose
  // parent exists: it was there before when its parent was, and it is added with a parent that is new
  // (f:resources of a new container has its `.`; f:spec of a created object has none).
  const existed = new Map<string, boolean>();
  const existedBefore = (key: string, node: FieldNode): boolean => {
    const known = existed.get(key);
    if (known !== undefined) return known;
    let result = old.has(key);
    if (!result && node.implicit) {
      const parentPath = node.path.slice(0, -1);
      const parentKey = pathKey(parentPath);
      const parent = now.get(parentKey);
      result = parentPath.length === 0 || (parent !== undefined && existedBefore(parentKey, parent));
    }
    existed.set(key, result);
    return result;
  };
  for (const [key, node] of now) {
    const previous = old.get(key);
    if (previous === undefined) {
      if (!existedBefore(key, node)) added.add(node.path, key);
    } else if ((node.compareValue || previous.compareValue) && !jsonEqual(node.value, previous.value)) {
      modified.add(node.path, key);
    }
  }
  for (const [key, node] of old) if (!now.has(key)) removed.add(node.path, key);
  return { added, removed, modified };
}

// fieldmanager's stripMeta, plus the deletion fields only the server sets: never owned by a manager.
const systemRootFields: ReadonlySet<string> = new Set(['f:apiVersion', 'f:kind']);
const systemMetadataFields: ReadonlySet<string> = new Set([
  'f:name', 'f:namespace', 'f:uid', 'f:resourceVersion', 'f:generation', 'f:creationTimestamp', 'f:deletionTimestamp',
  'f:deletionGracePeriodSeconds', 'f:managedFields', 'f:selfLink', 'f:clusterName',
]);

/**
 * Drops the fields no manager may own: system metadata always, `status` on the main resource, and
 * everything but `status` on the status subresource (the strategies' reset fields).
 */
export function withoutIgnoredFields(set: FieldSet, subresource: string | undefined, ownsStatus = false): FieldSet {
  const main = subresource === undefined || subresource === '';
  if (ownsStatus && main) return set.filter((path) => !systemRootFields.has(path[0] as string) && !(path[0] === 'f:metadata' && (path.length === 1 || systemMetadataFields.has(path[1] as string))));
  return set.filter((path) => {
    const first = path[0] as string;
    if (systemRootFields.has(first)) return false;
    if (first === 'f:metadata' && (path.length === 1 || systemMetadataFields.has(path[1] as string))) return false;
    if (subresource === 'status') return first === 'f:status';
    return !main || first !== 'f:status';
  });
}

/** A decoded managedFields entry. */
export interface ManagerEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string | undefined;
  set: FieldSet;
}

/** Identity of an entry: Apply entries are one per manager and subresource, Update entries also per apiVersion. */
export function entryIdentity(entry: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([entry.manager, entry.operation, entry.operation === 'Apply' ? '' : entry.apiVersion, entry.subresource]);
}

/** Decodes `metadata.managedFields`; malformed entries are skipped (they own nothing). */
export function decodeManagedFields(object: JsonObject | undefined): ManagerEntry[] {
  const meta = object?.metadata;
  const raw = isObject(meta) ? meta.managedFields : undefined;
  if (!Array.isArray(raw)) return [];
  const entries: ManagerEntry[] = [];
  for (const item of raw) {
    if (!isObject(item)) continue;
    const entry = item as ManagedFieldsEntry;
    if (typeof entry.manager !== 'string' || (entry.operation !== 'Apply' && entry.operation !== 'Update')) continue;
    entries.push({
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: typeof entry.apiVersion === 'string' ? entry.apiVersion : '',
      subresource: typeof entry.subresource === 'string' ? entry.subresource : '',
      time: typeof entry.time === 'string' ? entry.time : undefined,
      set: FieldSet.fromFieldsV1(entry.fieldsV1),
    });
  }
  return entries;
}

/** Encodes entries the way kube-apiserver stores them: empty ones dropped, Apply first, then by time and manager. */
export function encodeManagedFields(entries: readonly ManagerEntry[]): ManagedFieldsEntry[] {
  return entries
    .filter((e) => !e.set.isEmpty())
    .sort((a, b) => cmp(a.operation, b.operation) || cmp(a.time ?? '', b.time ?? '') || cmp(a.manager, b.manager) || cmp(a.apiVersion, b.apiVersion) || cmp(a.subresource, b.subresource))
    .map((e) => {
      const out: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
      if (e.time !== undefined) out.time = e.time;
      out.fieldsType = 'FieldsV1';
      out.fieldsV1 = e.set.toFieldsV1();
      if (e.subresource !== '') out.subresource = e.subresource;
      return out;
    });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** How kube-apiserver names a manager in conflict messages. */
export function describeOwner(entry: ManagerEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== '') text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  // The manager identity upstream prints carries no time, so Update owners read `"x" using apps/v1`.
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion}`;
  return text;
}

// fieldmanager's capManagers: at most this many Update entries; older ones merge into per-version buckets.
const maxUpdateManagers = 10;
const oldUpdatesManagerName = 'ancient-changes';

/**
 * Keeps the number of Update entries at {@link maxUpdateManagers} by merging the oldest ones, per
 * apiVersion, into an `ancient-changes` entry (k8s.io/apiserver fieldmanager capManagers).
 */
export function capUpdateManagers(entries: readonly ManagerEntry[]): ManagerEntry[] {
  let result = entries.filter((e) => !e.set.isEmpty());
  const updaters = result.filter((e) => e.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return result;
  const seconds = (e: ManagerEntry): number => (e.time === undefined ? 0 : Math.floor(Date.parse(e.time) / 1000) || 0);
  updaters.sort((a, b) => seconds(a) - seconds(b) || cmp(entryIdentity(a), entryIdentity(b)));
  const firstOfVersion = new Map<string, ManagerEntry>();
  let length = updaters.length;
  for (const entry of updaters) {
    if (length <= maxUpdateManagers) break;
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, entry);
      continue;
    }
    const bucketIdentity = entryIdentity({ manager: oldUpdatesManagerName, operation: 'Update', apiVersion: entry.apiVersion, subresource: '' });
    let bucket = result.find((e) => entryIdentity(e) === bucketIdentity);
    if (bucket === undefined) {
      bucket = { ...first, manager: oldUpdatesManagerName, subresource: '' };
      result = result.filter((e) => e !== first);
      result.push(bucket);
    }
    // The bucket takes the time of the most recent update merged into it.
    const merged: ManagerEntry = { ...bucket, set: entry.set.union(bucket.set), time: entry.time };
    result = result.filter((e) => e !== bucket && e !== entry);
    result.push(merged);
    length--;
  }
  return result;
}

/**
 * Returns `object` with `metadata.managedFields` set to `entries` (removed when empty): a new object and
 * a new metadata, the other members shared with `object` (the writer's candidate, which it hands over).
 */
export function withManagedFields(object: JsonObject, entries: readonly ManagerEntry[]): JsonObject {
  const out: JsonObject = { ...object };
  // Malformed metadata is left for validation to reject, not replaced.
  if (out.metadata !== undefined && !isObject(out.metadata)) return out;
  const meta: JsonObject = isObject(out.metadata) ? { ...out.metadata } : {};
  const encoded = encodeManagedFields(capUpdateManagers(entries));
  if (encoded.length > 0) meta.managedFields = encoded;
  else delete meta.managedFields;
  out.metadata = meta;
  return out;
}

/** The group/kind used to look up the merge schema of `object`. */
export function groupKindOf(object: JsonObject, apiVersion: string): { group: string; version: string; kind: string } {
  const gv = typeof object.apiVersion === 'string' ? object.apiVersion : apiVersion;
  const slash = gv.indexOf('/');
  return { group: slash < 0 ? '' : gv.slice(0, slash), version: gv.slice(slash + 1), kind: typeof object.kind === 'string' ? object.kind : '' };
}

/**
 * Records a non-apply write (create, update, patch) in `updated.metadata.managedFields`.
 *
 * The manager becomes owner of every field it added or changed compared with `previous`; those fields
 * leave other managers' sets, removed fields leave every set, the manager's Update entry for the same
 * apiVersion and subresource is merged into one, and entries left empty disappear. A client may set
 * `managedFields` explicitly on the main resource; a non-empty list it sends replaces the recorded one.
 * As upstream, an existing object without managed fields is not tracked by updates (only creates and
 * server-side apply start tracking).
 *
 * @returns `updated` with the new managedFields: a new root and metadata, the other members `updated`'s
 * own (the caller hands `updated` over); the inputs are not modified.
 * @example
 * const stored = trackUpdate(old, candidate, { manager: 'kubectl-edit', now: new Date(clock.now()).toISOString(), apiVersion: 'apps/v1' });
 */
export function trackUpdate(
  previous: Record<string, unknown> | undefined,
  updated: Record<string, unknown>,
  options: { manager: string; now: string; apiVersion: string; subresource?: string },
): Record<string, unknown> {
  const subresource = options.subresource ?? '';
  const schema = schemaFor(groupKindOf(updated, options.apiVersion));
  // A client may rewrite managedFields on the main resource; an absent or empty list keeps the recorded
  // one, so clients unaware of the field cannot wipe it (a list holding one empty entry clears it).
  const sent = managedFieldsOf(updated);
  const explicit = subresource === '' && Array.isArray(sent) && sent.length > 0;
  const entries = decodeManagedFields(explicit ? updated : previous);
  // fieldmanager's skipNonApplied: an existing object without managed fields stays untracked until
  // its first apply (this is also how a list holding one empty entry strips them for good).
  if (previous !== undefined && entries.length === 0) return withManagedFields(updated, []);

  const comparison = compareObjects(stripped(previous), stripped(updated), schema);
  const changed = withoutIgnoredFields(comparison.added.union(comparison.modified), options.subresource, schema.ownsStatus === true);
  for (const entry of entries) {
    entry.set = entry.set.difference(comparison.removed).difference(changed);
  }
  const identity = entryIdentity({ manager: options.manager, operation: 'Update', apiVersion: options.apiVersion, subresource });
  const mine = entries.find((e) => entryIdentity(e) === identity);
  const others = entries.filter((e) => e !== mine);
  // Upstream refreshes the entry's time only when this write changed something.
  const next: ManagerEntry = {
    manager: options.manager,
    operation: 'Update',
    apiVersion: options.apiVersion,
    subresource,
    time: changed.isEmpty() && mine !== undefined ? mine.time : options.now,
    set: (mine?.set ?? new FieldSet()).union(changed),
  };
  return withManagedFields(updated, [...others, next]);
}

function managedFieldsOf(object: JsonObject | undefined): unknown {
  const meta = object?.metadata;
  return isObject(meta) ? meta.managedFields : undefined;
}

// The managedFields list itself is never compared as content.
function stripped(object: JsonObject | undefined): JsonObject {
  if (object === undefined) return {};
  const meta = object.metadata;
  if (!isObject(meta) || !('managedFields' in meta)) return object;
  const { managedFields: _ignored, ...rest } = meta;
  return { ...object, metadata: rest };
}
