/**
 * How the mutating webhook dispatcher words a JSONPatch it cannot apply: it decodes and applies the patch
 * with github.com/evanphx/json-patch (v4), whose errors reach the client as a 500 (`Internal error occurred:
 * replace operation does not apply: doc is missing path: /a/b: missing value`). The patch itself is applied by
 * the server's JSON patch implementation; this module only finds the operation that fails and words it.
 */
import { applyJsonPatch } from '../../patch/index.ts';
import { parseJsonPointer } from '../../patch/json-patch.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's name of a JSON value's type in json.Unmarshal errors. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** The error json.Unmarshal gives for a patch document that is not a list of operations, if it is not one. */
export function patchDecodeError(patch: unknown): string | undefined {
  return Array.isArray(patch) ? undefined : `json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`;
}

// The container a pointer's last token lives in, or undefined when some step is missing.
function container(doc: unknown, tokens: readonly string[]): unknown {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(t) ? cur[Number(t)] : undefined;
    else if (isObj(cur)) cur = cur[t];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  // Only objects and arrays contain anything.
  return typeof cur === 'object' && cur !== null ? cur : undefined;
}

function has(parent: unknown, key: string): boolean {
  if (Array.isArray(parent)) return /^\d+$/.test(key) && Number(key) < parent.length;
  return isObj(parent) && key in parent;
}

// evanphx's wording of one operation that does not apply to `doc`, or undefined when it applies.
function operationError(doc: unknown, op: Obj): string | undefined {
  const path = typeof op.path === 'string' ? op.path : '';
  let tokens: string[];
  try {
    tokens = parseJsonPointer(path);
  } catch {
    return undefined;
  }
  const parent = container(doc, tokens);
  const key = tokens[tokens.length - 1] ?? '';
  switch (op.op) {
    case 'add':
      return parent === undefined ? `add operation does not apply: doc is missing path: "${path}": missing value` : undefined;
    case 'remove':
      if (parent === undefined) return `remove operation does not apply: doc is missing path: "${path}": missing value`;
      return has(parent, key) ? undefined : `error in remove for path: '${path}': Unable to remove nonexistent key: ${key}: missing value`;
    case 'replace':
      if (parent === undefined) return `replace operation does not apply: doc is missing path: ${path}: missing value`;
      return has(parent, key) ? undefined : `replace operation does not apply: doc is missing key: ${path}: missing value`;
    case 'test':
      if (parent === undefined) return `test operation does not apply: is missing path: ${path}: missing value`;
      return `testing value ${path} failed: test failed`;
    default:
      return typeof op.op === 'string' && !['move', 'copy'].includes(op.op) ? `Unexpected kind: ${op.op}` : undefined;
  }
}

/**
 * The message of the first operation of `ops` that does not apply to `doc`, in evanphx's words; undefined when
 * the failure is not one it words differently (the caller keeps its own message then).
 */
export function patchApplyError(doc: unknown, ops: readonly unknown[]): string | undefined {
  let cur = doc;
  for (const op of ops) {
    try {
      cur = applyJsonPatch(cur, [op]);
    } catch {
      return isObj(op) ? operationError(cur, op) : undefined;
    }
  }
  return undefined;
}
