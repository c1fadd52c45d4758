/**
 * Strategic merge patch for built-in kinds, as kube-apiserver applies
 * `application/strategic-merge-patch+json` bodies (k8s.io/apimachinery/pkg/util/strategicpatch).
 *
 * Lists merge according to the schema table of patch-merge-keys.ts: by their patch merge key
 * (containers by name, ports by containerPort, ...), as sets of primitives (finalizers), or are
 * replaced. Supported directives: `$patch: replace|delete` in maps and list elements, `$patch: merge`
 * in maps, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` and `$retainKeys`.
 *
 * Error mapping follows the apiserver: format errors of directives are 400, lists of lists and
 * content outside `$retainKeys` are 422, everything upstream reports as an untyped error (a list element
 * without its merge key, an unknown `$patch` value) is 500 with an empty reason.
 */
import { badPatch, PatchError } from './errors.ts';
import { cloneJson, isObject, jsonEqual, jsonKind, setMember, type JsonObject } from './json-value.ts';
import { fieldSchema, schemaFor, type FieldSchema, type GroupVersionKind, type ListSchema } from './patch-merge-keys.ts';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

// k8s.io/apimachinery/pkg/util/mergepatch sentinel errors, with the status the patch handler maps them to.
const errBadPatchFormatForPrimitiveList = (): PatchError => badPatch('invalid patch format of primitive list');
const errBadPatchFormatForRetainKeys = (): PatchError => badPatch('invalid patch format of retainKeys');
const errBadPatchFormatForSetElementOrderList = (): PatchError => badPatch('invalid patch format of setElementOrder list');
const errNoListOfLists = (): PatchError => new PatchError(422, 'Invalid', 'lists of lists are not supported');

/** An error upstream returns untyped, which the apiserver answers as 500 with an empty reason. */
function untyped(message: string): PatchError {
  return new PatchError(500, '', message);
}

/** Go's `%v` rendering of a decoded JSON value, so messages read like the apiserver's. */
function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isObject(value)) return `map[${Object.keys(value).sort().map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  return String(value as string | number | boolean);
}

function goTypeName(value: unknown): string {
  switch (jsonKind(value)) {
    case 'object': return 'map[string]interface {}';
    case 'array': return '[]interface {}';
    case 'string': return 'string';
    case 'number': return Number.isInteger(value) ? 'int64' : 'float64';
    case 'boolean': return 'bool';
    default: return '<nil>';
  }
}

const errNoMergeKey = (m: JsonObject, key: string): PatchError => untyped(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
const errBadPatchType = (t: unknown, m: JsonObject): PatchError => untyped(`unknown patch type: ${goFormat(t)} in map: ${goFormat(m)}`);
const errBadArgType = (expected: string, actual: unknown): PatchError => untyped(`expected a ${expected}, but received a ${goTypeName(actual)}`);

/**
 * Applies a strategic merge patch to an object of the built-in kind `kind`. Never mutates its inputs.
 *
 * @throws {PatchError} with the status kube-apiserver answers for the same patch.
 * @example
 * applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } }, { group: '', version: 'v1', kind: 'Pod' });
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, kind: GroupVersionKind): unknown {
  if (!isObject(patch)) throw badPatch(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  const original = isObject(doc) ? cloneJson(doc) : {};
  return mergeMap(original, cloneJson(patch), schemaFor(kind));
}

/** Merges `patch` into `original` (both private copies, updated in place). */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: FieldSchema | undefined): JsonObject {
  if (Object.hasOwn(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'delete') return {};
    // Directives nested in the replacement are resolved against nothing, so none leaks into the object.
    if (directive === 'replace') return mergeMap({}, withoutMarker(patch), schema);
    // Merging is what a map does anyway; accepted for symmetry with list elements.
    if (directive !== 'merge') throw errBadPatchType(directive, patch);
    patch = withoutMarker(patch);
  }
  const target: JsonObject = original ?? {};
  applyRetainKeys(target, patch);
  applySetElementOrder(target, patch, schema);
  for (const [key, patchValue] of Object.entries(patch)) {
    if (key.startsWith(deleteFromPrimitiveListPrefix)) {
      deleteFromPrimitiveList(target, extractKey(key, deleteFromPrimitiveListPrefix), patchValue);
      continue;
    }
    if (patchValue === null) {
      delete target[key];
      continue;
    }
    const childSchema = fieldSchema(schema, key);
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    if (current === undefined || jsonKind(current) !== jsonKind(patchValue)) {
      setMember(target, key, fresh(patchValue, childSchema));
    } else if (isObject(patchValue)) {
      setMember(target, key, mergeMap(current as JsonObject, patchValue, childSchema));
    } else if (Array.isArray(patchValue)) {
      setMember(target, key, mergeListField(current as unknown[], patchValue, childSchema));
    } else {
      setMember(target, key, patchValue);
    }
  }
  return target;
}

function withoutMarker(patch: JsonObject): JsonObject {
  const rest = { ...patch };
  delete rest[directiveMarker];
  return rest;
}

/** A patch value for a field the original lacks: merged into nothing, so its directives take effect. */
function fresh(value: unknown, schema: FieldSchema | undefined): unknown {
  if (isObject(value)) return mergeMap(undefined, value, schema);
  if (Array.isArray(value)) return mergeListField([], value, schema);
  return value;
}

function mergeListField(original: unknown[], patch: unknown[], schema: FieldSchema | undefined): unknown[] {
  if (schema?.kind === 'list' && schema.strategy === 'merge') return mergeList(original, patch, schema);
  return patch;
}

/** `$retainKeys`: members of `original` not listed are dropped; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw errBadPatchFormatForRetainKeys();
  const keep = new Set(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!keep.has(key)) throw errBadPatchFormatForRetainKeys();
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === deleteFromPrimitiveListPrefix ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/** `$deleteFromPrimitiveList/<field>: [values]` removes every occurrence of the values from the field. */
function deleteFromPrimitiveList(original: JsonObject, field: string, values: unknown): void {
  if (!Array.isArray(values)) throw errBadPatchFormatForPrimitiveList();
  const current = Object.hasOwn(original, field) ? original[field] : undefined;
  // Nothing to delete from: upstream would store the deletion list itself, which is never what was meant.
  if (!Array.isArray(current)) return;
  setMember(original, field, current.filter((item) => !values.some((v) => scalarEqual(v, item))));
}

/** `$setElementOrder/<field>`: merges the field's list, then orders it as the directive says. */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: FieldSchema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const field = extractKey(key, setElementOrderPrefix);
    const originalList = Object.hasOwn(original, field) ? original[field] : undefined;
    const patchList = Object.hasOwn(patch, field) ? patch[field] : undefined;
    if (originalList !== undefined && !Array.isArray(originalList)) throw errBadArgType('[]interface {}', originalList);
    if (patchList !== undefined && !Array.isArray(patchList)) throw errBadArgType('[]interface {}', patchList);
    const list = fieldSchema(schema, field);
    const mergeKey = list?.kind === 'list' ? list.mergeKey ?? '' : '';
    validatePatchWithSetOrderList(patchList ?? [], order, mergeKey);
    let merged: unknown[];
    if (originalList !== undefined && patchList !== undefined) merged = mergeListField(originalList, patchList, list);
    else if (originalList !== undefined) merged = originalList;
    else if (patchList !== undefined) merged = mergeListField([], patchList, list);
    else continue;
    const { inList, notInList } = partition(merged, order, mergeKey);
    setMember(original, field, normalizeElementOrder(inList, notInList, order, originalList ?? [], mergeKey));
    delete patch[field];
  }
}

function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey === '' ? patchList : patchList.filter((item) => !(isObject(item) && item[directiveMarker] === 'delete'));
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    const item = nonDelete[p];
    if (isObject(item) && Object.hasOwn(item, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length) {
    throw untyped(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return scalarEqual(left, right);
  if (!isObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!Object.hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

// Go compares merge key values and primitive elements with ==; JSON scalars compare the same way.
function scalarEqual(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && jsonEqual(a, b));
}

/** The kind shared by every element of the lists; lists of lists and mixed kinds are rejected. */
function elementKind(...lists: unknown[][]): string | undefined {
  let kind: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = jsonKind(item) === 'number' ? (Number.isInteger(item) ? 'int' : 'float') : jsonKind(item);
      if (kind === undefined) {
        if (k === 'array') throw errNoListOfLists();
        kind = k;
      } else if (kind !== k) {
        throw untyped(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  return kind;
}

/** Merges a list whose patch strategy is merge (mergeSlice upstream). */
function mergeList(original: unknown[], patch: unknown[], schema: ListSchema): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  if (kind !== 'object') {
    const merged: unknown[] = [];
    for (const item of [...original, ...patch]) if (!merged.some((m) => scalarEqual(m, item))) merged.push(item);
    const { inList, notInList } = partition(merged, patch, '');
    return normalizeElementOrder(inList, notInList, patch, original, '');
  }
  const mergeKey = schema.mergeKey;
  if (mergeKey === undefined) throw untyped('cannot merge lists without merge key for type map');
  const special = applySpecialElements(original, patch as JsonObject[], mergeKey, schema.items);
  const merged = [...special.original];
  for (const item of special.patch) {
    if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const index = merged.findIndex((m) => {
      if (!isObject(m)) throw untyped(`value for key ${merged.indexOf(m)} is not a map.`);
      return Object.hasOwn(m, mergeKey) && scalarEqual(m[mergeKey], item[mergeKey]);
    });
    if (index >= 0) merged[index] = mergeMap(merged[index] as JsonObject, item, schema.items);
    else merged.push(mergeMap(undefined, item, schema.items));
  }
  const { inList, notInList } = partition(merged, special.patch, mergeKey);
  return normalizeElementOrder(inList, notInList, special.patch, special.original, mergeKey);
}

/** Applies `$patch: delete|replace` elements; returns the remaining original and patch elements. */
function applySpecialElements(original: unknown[], patch: JsonObject[], mergeKey: string, items: FieldSchema | undefined): { original: unknown[]; patch: JsonObject[] } {
  let remaining = original;
  const plain: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!Object.hasOwn(item, directiveMarker)) {
      plain.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      remaining = remaining.filter((m) => {
        if (!isObject(m)) throw untyped('value for key 0 is not a map.');
        return !(Object.hasOwn(m, mergeKey) && scalarEqual(m[mergeKey], item[mergeKey]));
      });
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw untyped('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  if (replace) return { original: plain.map((item) => mergeMap(undefined, item, items)), patch: [] };
  return { original: remaining, patch: plain };
}

function keyOf(item: unknown, mergeKey: string): unknown {
  if (mergeKey === '') return item;
  return isObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: unknown[], item: unknown, mergeKey: string): number {
  const key = keyOf(item, mergeKey);
  return list.findIndex((candidate) => scalarEqual(keyOf(candidate, mergeKey), key));
}

/** Splits `items` into those present in `by` (by merge key, or by value for primitives) and the rest. */
function partition(items: unknown[], by: unknown[], mergeKey: string): { inList: unknown[]; notInList: unknown[] } {
  const inList: unknown[] = [];
  const notInList: unknown[] = [];
  for (const item of items) {
    if (mergeKey !== '' && !isObject(item)) throw errBadArgType('map[string]interface {}', item);
    if (mergeKey !== '' && !Object.hasOwn(item as JsonObject, mergeKey)) throw errNoMergeKey(item as JsonObject, mergeKey);
    (indexIn(by, item, mergeKey) >= 0 ? inList : notInList).push(item);
  }
  return { inList, notInList };
}

/**
 * Orders the merged list as upstream does: patch items in patch order, server-only items in live
 * order, interleaved by their relative position in the live list (patch items first when unknown).
 */
function normalizeElementOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

// A stable insertion sort with upstream's comparator, which is not a strict order for items missing
// from `order`; Array.prototype.sort would be free to place those differently.
function normalizeSliceOrder(items: unknown[], order: unknown[], mergeKey: string): unknown[] {
  const out = [...items];
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, mergeKey);
    const ib = indexIn(order, b, mergeKey);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) {
      [out[j - 1], out[j]] = [out[j], out[j - 1]];
    }
  }
  return out;
}
