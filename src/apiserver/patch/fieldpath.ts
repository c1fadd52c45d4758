/**
 * Field paths and field sets in the serialisation kube-apiserver uses for `metadata.managedFields`
 * (sigs.k8s.io/structured-merge-diff fieldpath, format "FieldsV1").
 *
 * A path is a list of elements, each already in its FieldsV1 spelling:
 * - `f:<name>`: a field of a map or struct,
 * - `k:<json>`: an element of an associative list, identified by its key fields (sorted by name),
 * - `v:<json>`: an element of a set of primitives, identified by its value,
 * - `i:<n>`: an element of a list identified by position (lists without keys).
 */
import { isObject } from './json-value.ts';

/** A path from the object root; `[]` is the root itself. */
export type FieldPath = readonly string[];

/** The FieldsV1 element naming field `name`. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** The FieldsV1 element naming the associative-list element whose key fields are `key`. */
export function keyElement(key: Readonly<Record<string, unknown>>): string {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(key).sort()) sorted[name] = key[name];
  return `k:${JSON.stringify(sorted)}`;
}

/** The FieldsV1 element naming the set element `value`. */
export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

/** The FieldsV1 element naming list position `index`. */
export function indexElement(index: number): string {
  return `i:${index}`;
}

const elementRank = { f: 0, k: 1, v: 2, i: 3 } as const;

function rank(element: string): number {
  const prefix = element.slice(0, 1);
  return prefix in elementRank ? elementRank[prefix as keyof typeof elementRank] : 4;
}

/** Upstream's PathElement order: fields, then keys, then values, then indices; each sorted within. */
export function compareElements(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  const ba = a.slice(2);
  const bb = b.slice(2);
  switch (ra) {
    case elementRank.f: return compareStrings(ba, bb);
    case elementRank.i: return Number(ba) - Number(bb);
    case elementRank.k: return compareFieldLists(parseJson(ba), parseJson(bb));
    case elementRank.v: return compareValues(parseJson(ba), parseJson(bb));
    default: return compareStrings(a, b);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// value.FieldList.Compare: field by field (name, then value), a shorter list first.
function compareFieldLists(a: unknown, b: unknown): number {
  if (!isObject(a) || !isObject(b)) return compareValues(a, b);
  const ea = Object.entries(a).sort(([x], [y]) => compareStrings(x, y));
  const eb = Object.entries(b).sort(([x], [y]) => compareStrings(x, y));
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    const [na, va] = ea[i] as [string, unknown];
    const [nb, vb] = eb[i] as [string, unknown];
    const c = compareStrings(na, nb) || compareValues(va, vb);
    if (c !== 0) return c;
  }
  return ea.length - eb.length;
}

// value.Compare's total order across types: numbers, strings, booleans, lists, maps, null.
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (isObject(a) && isObject(b)) return compareFieldLists(a, b);
  return 0;
}

/**
 * A path in the notation kube-apiserver prints in conflicts: `.spec.containers[name="c"].image`,
 * `.metadata.finalizers[="x"]`, `.spec.args[0]`.
 */
export function pathToString(path: FieldPath): string {
  return path.map((element) => {
    const body = element.slice(2);
    switch (element.slice(0, 2)) {
      case 'f:': return `.${body}`;
      case 'k:': {
        const key = JSON.parse(body) as Record<string, unknown>;
        return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
      }
      case 'v:': return `[=${body}]`;
      case 'i:': return `[${body}]`;
      default: return `.${element}`;
    }
  }).join('');
}

// Paths are keyed by their elements joined with NUL; the rare NUL or SOH inside an element is escaped
// so that distinct paths never share a key. Much cheaper than JSON.stringify on every lookup.
const separator = '\u0000';

function escapeElement(element: string): string {
  return element.includes('\u0000') || element.includes('\u0001') ? element.replaceAll('\u0001', '\u0001e').replaceAll('\u0000', '\u0001z') : element;
}

/** The map key of `path` (see {@link childKey} for building it incrementally). */
export function pathKey(path: FieldPath): string {
  let key = '';
  for (const element of path) key = childKey(key, element);
  return key;
}

/** The key of `parentKey`'s child `element`; the root's key is `''`. */
export function childKey(parentKey: string, element: string): string {
  return parentKey === '' ? separator + escapeElement(element) : parentKey + separator + escapeElement(element);
}

// FieldsV1 objects this module made (frozen): a set decoded from one of them encodes back to it.
const ownEncodings = new WeakSet<object>();

// Encodings by their members (keys in insertion order): the pods of one template have the same field sets
// (the creator's, the scheduler's binding, the kubelet's status), so one frozen encoding serves them all.
const encodings = new Map<string, Readonly<Record<string, unknown>>>();
// Distinct sets remembered; the map starts over when full.
const maxCachedEncodings = 1024;

// The members of each own encoding, decoded once (every write decodes each stored entry's set again).
const decodedEncodings = new WeakMap<object, FieldSet>();

/** A set of field paths (fieldpath.Set), with the operations managed-fields bookkeeping needs. */
export class FieldSet {
  readonly #paths = new Map<string, FieldPath>();
  // The FieldsV1 this set's members encode to, once known (decoded from, or encoded to): every write
  // re-encodes each manager's entry, and most entries did not change. Frozen, so it can be shared between
  // stored versions; dropped by add and delete; kept by the operations that leave the members as they were.
  #encoded: Readonly<Record<string, unknown>> | undefined;

  constructor(paths: Iterable<FieldPath> = []) {
    for (const path of paths) this.add(path);
  }

  /** Adds `path` to the set. */
  add(path: FieldPath, key: string = pathKey(path)): void {
    this.#encoded = undefined;
    this.#paths.set(key, path);
  }

  /** Removes `path` (not its descendants). */
  delete(path: FieldPath): void {
    this.#encoded = undefined;
    this.#paths.delete(pathKey(path));
  }

  /** True when `path` itself is a member. */
  has(path: FieldPath): boolean {
    return this.#paths.has(pathKey(path));
  }

  /** Number of paths. */
  get size(): number {
    return this.#paths.size;
  }

  /** True when the set holds no path. */
  isEmpty(): boolean {
    return this.#paths.size === 0;
  }

  [Symbol.iterator](): IterableIterator<FieldPath> {
    return this.#paths.values();
  }

  /** Members with their keys. */
  entries(): IterableIterator<[string, FieldPath]> {
    return this.#paths.entries();
  }

  #hasKey(key: string): boolean {
    return this.#paths.has(key);
  }

  /** Members for which `keep` returns true. */
  filter(keep: (path: FieldPath) => boolean): FieldSet {
    return this.#filter((_key, path) => keep(path));
  }

  #filter(keep: (key: string, path: FieldPath) => boolean): FieldSet {
    const out = new FieldSet();
    for (const [key, path] of this.#paths) if (keep(key, path)) out.add(path, key);
    // Nothing filtered out: the same members, the same encoding.
    if (out.#paths.size === this.#paths.size) out.#encoded = this.#encoded;
    return out;
  }

  /** Members in upstream order (depth first, elements sorted by {@link compareElements}). */
  sorted(): FieldPath[] {
    return [...this.#paths.values()].sort(comparePaths);
  }

  /** Members of this set or `other`. */
  union(other: FieldSet): FieldSet {
    const out = this.#filter(() => true);
    const encoded = out.#encoded;
    for (const [key, path] of other.entries()) out.add(path, key);
    // Nothing added: the same members, the same encoding.
    if (out.#paths.size === this.#paths.size) out.#encoded = encoded;
    return out;
  }

  /** Members of this set that are not in `other`. */
  difference(other: FieldSet): FieldSet {
    return this.#filter((key) => !other.#hasKey(key));
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return this.#filter((key) => other.#hasKey(key));
  }

  /** Members that are neither in `prefixes` nor below one of them (fieldpath.Set.RecursiveDifference). */
  withoutPrefixes(prefixes: Iterable<FieldPath>): FieldSet {
    const keys = [...prefixes].map(pathKey);
    return this.#filter((key) => !keys.some((prefix) => isKeyPrefix(prefix, key)));
  }

  /** Members equal to or below one of `prefixes`. */
  onlyPrefixes(prefixes: Iterable<FieldPath>): FieldSet {
    const keys = [...prefixes].map(pathKey);
    return this.#filter((key) => keys.some((prefix) => isKeyPrefix(prefix, key)));
  }

  /** True when some member lies strictly below `path`. */
  hasDescendant(path: FieldPath): boolean {
    for (const member of this) if (member.length > path.length && isPrefix(path, member)) return true;
    return false;
  }

  /** Encodes the set as a FieldsV1 object, exactly as kube-apiserver does. */
  toFieldsV1(): Readonly<Record<string, unknown>> {
    if (this.#encoded !== undefined) return this.#encoded;
    // Length-prefixed, so that no two different sets give the same text.
    let members = '';
    for (const key of this.#paths.keys()) members += `${key.length}:${key}`;
    let encoded = encodings.get(members);
    if (encoded === undefined) {
      encoded = deepFreeze(this.#encode());
      ownEncodings.add(encoded);
      if (encodings.size >= maxCachedEncodings) encodings.clear();
      encodings.set(members, encoded);
    }
    this.#encoded = encoded;
    return encoded;
  }

  #encode(): Record<string, unknown> {
    const root: Tree = { member: false, children: new Map() };
    for (const path of this) {
      let node = root;
      for (const element of path) {
        let next = node.children.get(element);
        if (next === undefined) {
          next = { member: false, children: new Map() };
          node.children.set(element, next);
        }
        node = next;
      }
      node.member = true;
    }
    return encodeTree(root, false);
  }

  /** Decodes a FieldsV1 object; malformed parts are ignored rather than failing the request. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const own = isObject(fields) && ownEncodings.has(fields);
    const known = own ? decodedEncodings.get(fields) : undefined;
    // A copy: the caller may add to or delete from the set it gets.
    if (known !== undefined) return known.#filter(() => true);
    const set = new FieldSet();
    const walk = (node: unknown, path: string[]): void => {
      if (!isObject(node)) return;
      const keys = Object.keys(node);
      if (keys.length === 0 && path.length > 0) set.add(path);
      for (const key of keys) {
        if (key === '.') {
          if (path.length > 0) set.add(path);
        } else {
          walk(node[key], [...path, key]);
        }
      }
    };
    walk(fields, []);
    if (own) {
      set.#encoded = fields;
      decodedEncodings.set(fields, set.#filter(() => true));
    }
    return set;
  }
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  return Object.freeze(o);
}

interface Tree {
  member: boolean;
  children: Map<string, Tree>;
}

function encodeTree(node: Tree, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (includeSelf && node.member && node.children.size > 0) out['.'] = {};
  for (const element of [...node.children.keys()].sort(compareElements)) {
    out[element] = encodeTree(node.children.get(element) as Tree, true);
  }
  return out;
}

function isKeyPrefix(prefix: string, key: string): boolean {
  return key === prefix || (key.startsWith(prefix) && key.charAt(prefix.length) === separator);
}

/** True when `prefix` equals `path` or is one of its ancestors. */
export function isPrefix(prefix: FieldPath, path: FieldPath): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((element, i) => path[i] === element);
}

/** Orders paths element by element, ancestors first. */
export function comparePaths(a: FieldPath, b: FieldPath): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareElements(a[i] as string, b[i] as string);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
