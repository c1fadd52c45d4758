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
  if (ra === elementRank.i) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
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

function pathKey(path: FieldPath): string {
  return JSON.stringify(path);
}

/** A set of field paths (fieldpath.Set), with the operations managed-fields bookkeeping needs. */
export class FieldSet {
  readonly #paths = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const path of paths) this.add(path);
  }

  /** Adds `path` to the set. */
  add(path: FieldPath): void {
    this.#paths.set(pathKey(path), path);
  }

  /** Removes `path` (not its descendants). */
  delete(path: FieldPath): void {
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

  /** Members in upstream order (depth first, elements sorted by {@link compareElements}). */
  sorted(): FieldPath[] {
    return [...this.#paths.values()].sort(comparePaths);
  }

  /** Members of this set or `other`. */
  union(other: FieldSet): FieldSet {
    const out = new FieldSet(this);
    for (const path of other) out.add(path);
    return out;
  }

  /** Members of this set that are not in `other`. */
  difference(other: FieldSet): FieldSet {
    return new FieldSet([...this].filter((path) => !other.has(path)));
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this].filter((path) => other.has(path)));
  }

  /** Members that are neither in `prefixes` nor below one of them (fieldpath.Set.RecursiveDifference). */
  withoutPrefixes(prefixes: Iterable<FieldPath>): FieldSet {
    const list = [...prefixes];
    return new FieldSet([...this].filter((path) => !list.some((prefix) => isPrefix(prefix, path))));
  }

  /** Members equal to or below one of `prefixes`. */
  onlyPrefixes(prefixes: Iterable<FieldPath>): FieldSet {
    const list = [...prefixes];
    return new FieldSet([...this].filter((path) => list.some((prefix) => isPrefix(prefix, path))));
  }

  /** True when some member lies strictly below `path`. */
  hasDescendant(path: FieldPath): boolean {
    for (const member of this) if (member.length > path.length && isPrefix(path, member)) return true;
    return false;
  }

  /** Encodes the set as a FieldsV1 object, exactly as kube-apiserver does. */
  toFieldsV1(): Record<string, unknown> {
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
    return set;
  }
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
