/**
 * JSON patch (RFC 6902), as kube-apiserver applies `application/json-patch+json` bodies.
 *
 * Error mapping follows k8s.io/apiserver's patch handler: a body that is not a list of operation
 * objects is a 400 BadRequest; more than 10,000 operations is a 413; an operation that cannot be
 * applied (unknown op, missing member, missing path, failed `test`) is a 422 Invalid.
 */
import { badPatch, PatchError, patchDoesNotApply } from './errors.ts';
import { cloneJson, isObject, jsonEqual, setMember } from './json-value.ts';

// k8s.io/apiserver/pkg/endpoints/handlers/patch.go: maxJSONPatchOperations.
const maxJsonPatchOperations = 10000;

/** Splits an RFC 6901 JSON pointer into unescaped reference tokens; `''` is the whole document. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchDoesNotApply(`invalid JSON pointer ${JSON.stringify(pointer)}: must be empty or start with "/"`);
  return pointer.slice(1).split('/').map((token) => {
    if (/~(?![01])/.test(token)) throw patchDoesNotApply(`invalid JSON pointer ${JSON.stringify(pointer)}: "~" must be followed by 0 or 1`);
    // ~1 first, then ~0, so that "~01" becomes "~1" and not "/" (RFC 6901 section 4).
    return token.replaceAll('~1', '/').replaceAll('~0', '~');
  });
}

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly index: number;
  readonly raw: Record<string, unknown>;
}

// An array index as kube-apiserver's JSON patch library reads it: any decimal integer (Go's Atoi, so
// "01" and "+1" too), negative values counting from the end. For add, the end itself is addressable.
function arrayIndex(token: string, length: number, allowEnd: boolean, op: Operation): number {
  if (!/^[+-]?[0-9]+$/.test(token)) throw patchDoesNotApply(`${describe(op)}: invalid array index ${JSON.stringify(token)}`);
  const size = allowEnd ? length + 1 : length;
  let index = Number(token);
  if (index >= size || index < -size) throw patchDoesNotApply(`${describe(op)}: array index ${token} out of bounds (length ${length})`);
  if (index < 0) index += size;
  return index;
}

function describe(op: Operation): string {
  return `json patch ${op.op} operation ${op.index} at path ${JSON.stringify(op.path)}`;
}

/** The parent container of `tokens` and the last token, or throws when a parent is missing. */
function locateParent(doc: unknown, tokens: string[], op: Operation): { parent: unknown; last: string } {
  let current = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    current = child(current, tokens[i] as string, op);
  }
  return { parent: current, last: tokens[tokens.length - 1] as string };
}

function child(container: unknown, token: string, op: Operation): unknown {
  if (Array.isArray(container)) {
    if (token === '-') throw patchDoesNotApply(`${describe(op)}: "-" does not name an existing array element`);
    return container[arrayIndex(token, container.length, false, op)];
  }
  if (isObject(container) && Object.hasOwn(container, token)) return container[token];
  throw patchDoesNotApply(`${describe(op)}: doc is missing path ${JSON.stringify(op.path)}`);
}

function getValue(doc: unknown, pointer: string, op: Operation): unknown {
  let current = doc;
  for (const token of parseJsonPointer(pointer)) current = child(current, token, op);
  return current;
}

// Upstream's test treats a missing member of an existing object as null, so `value: null` passes.
function testedValue(doc: unknown, pointer: string, op: Operation): unknown {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) return doc;
  const { parent, last } = locateParent(doc, tokens, op);
  if (isObject(parent) && !Object.hasOwn(parent, last)) return null;
  return child(parent, last, op);
}

function addValue(doc: unknown, pointer: string, value: unknown, op: Operation): unknown {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = locateParent(doc, tokens, op);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : arrayIndex(last, parent.length, true, op);
    parent.splice(index, 0, value);
  } else if (isObject(parent)) {
    setMember(parent, last, value);
  } else {
    throw patchDoesNotApply(`${describe(op)}: doc is missing path ${JSON.stringify(pointer)}`);
  }
  return doc;
}

function removeValue(doc: unknown, pointer: string, op: Operation): { doc: unknown; removed: unknown } {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) return { doc: null, removed: doc };
  const { parent, last } = locateParent(doc, tokens, op);
  if (Array.isArray(parent)) {
    if (last === '-') throw patchDoesNotApply(`${describe(op)}: "-" does not name an existing array element`);
    const index = arrayIndex(last, parent.length, false, op);
    return { doc, removed: parent.splice(index, 1)[0] };
  }
  if (isObject(parent) && Object.hasOwn(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return { doc, removed };
  }
  throw patchDoesNotApply(`${describe(op)}: doc is missing path ${JSON.stringify(pointer)}`);
}

function member(op: Operation, name: string): unknown {
  if (!Object.hasOwn(op.raw, name)) throw patchDoesNotApply(`json patch ${op.op} operation ${op.index} is missing the "${name}" member`);
  return op.raw[name];
}

function stringMember(op: Operation, name: string): string {
  const value = member(op, name);
  if (typeof value !== 'string') throw patchDoesNotApply(`json patch ${op.op} operation ${op.index}: "${name}" must be a string`);
  return value;
}

/** Validates the document shape: a list of objects. Deeper problems surface as 422 while applying. */
function decodePatch(patch: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(patch)) throw badPatch('json: cannot unmarshal the patch into a list of operations: a JSON patch must be an array');
  if (patch.length > maxJsonPatchOperations) {
    throw new PatchError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  return patch.map((entry, i) => {
    if (!isObject(entry)) throw badPatch(`json: cannot unmarshal operation ${i} of the patch: operations must be objects`);
    return entry;
  });
}

/**
 * Applies an RFC 6902 JSON patch to `doc` and returns the result. Supports add, remove, replace, move,
 * copy and test, the "-" end-of-array index and ~0/~1 escapes; unknown members are ignored (RFC 6902
 * section 4). Never mutates `doc` or `patch`.
 *
 * @throws {PatchError} 400 when `patch` is not a list of objects, 413 past 10,000 operations, 422 when
 *   an operation does not apply (its message names the operation and its path).
 * @example
 * applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 1 }, { op: 'add', path: '/b', value: 2 }]); // { a: 1, b: 2 }
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  const operations = decodePatch(patch);
  let result = cloneJson(doc);
  operations.forEach((raw, index) => {
    const opName = typeof raw.op === 'string' ? raw.op : '';
    if (opName === '') throw patchDoesNotApply(`json patch operation ${index} is missing a string "op" member`);
    const partial: Operation = { op: opName, path: '', index, raw };
    const path = stringMember(partial, 'path');
    const op: Operation = { ...partial, path };
    switch (op.op) {
      case 'add':
        result = addValue(result, path, cloneJson(member(op, 'value')), op);
        break;
      case 'remove':
        result = removeValue(result, path, op).doc;
        break;
      case 'replace': {
        const value = cloneJson(member(op, 'value'));
        result = addValue(removeValue(result, path, op).doc, path, value, op);
        break;
      }
      case 'move': {
        const from = stringMember(op, 'from');
        if (from === path) break;
        // A value cannot be moved into one of its own children (RFC 6902 section 4.4).
        if (path.startsWith(`${from}/`)) throw patchDoesNotApply(`${describe(op)}: cannot move ${JSON.stringify(from)} into one of its children`);
        const { doc: without, removed } = removeValue(result, from, { ...op, path: from });
        result = addValue(without, path, removed, op);
        break;
      }
      case 'copy': {
        const from = stringMember(op, 'from');
        result = addValue(result, path, cloneJson(getValue(result, from, { ...op, path: from })), op);
        break;
      }
      case 'test': {
        const expected = member(op, 'value');
        if (!jsonEqual(testedValue(result, path, op), expected)) throw patchDoesNotApply(`${describe(op)}: testing value ${JSON.stringify(path)} failed: test failed`);
        break;
      }
      default:
        throw patchDoesNotApply(`json patch operation ${index}: unexpected op ${JSON.stringify(op.op)}`);
    }
  });
  return result;
}
