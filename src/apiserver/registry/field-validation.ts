/**
 * fieldValidation (`Strict`, `Warn`, `Ignore`; `Warn` when unset, as since v1.27): the unknown and duplicate
 * fields of a request, reported as kube-apiserver's strict decoders report them
 * (k8s.io/apiserver/pkg/endpoints/handlers/rest.go, k8s.io/apimachinery/pkg/runtime/serializer/json,
 * sigs.k8s.io/json, sigs.k8s.io/yaml). Strict fails with 400 `strict decoding error: unknown field "spec.x",
 * duplicate field "y"` (422 `patch: Invalid value: …` for patches, whose result is checked); Warn adds one
 * Warning header `299 - "unknown field \"spec.x\""` per problem.
 *
 * - JSON bodies: one pass finds duplicate keys at any depth and, given the fields the kind knows, unknown
 *   keys in the order they appear (a value under an unknown key is skipped, as the decoder skips it).
 * - YAML bodies: duplicate keys are one `yaml: unmarshal errors:` problem with a `line N: key "k" already set
 *   in map` line per key (a warning per line under Warn); unknown keys follow, in sorted order per object,
 *   since the YAML is turned into a Go map and then into JSON.
 * - Custom resources: unknown fields are those pruning removed, reported after the duplicates, sorted.
 */
import { LineCounter, isScalar, parseDocument, visit, type Node } from 'yaml';
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';

/** The three fieldValidation directives. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The directive of a request; 400 for any other value. */
export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw new StatusError(newStatus(400, StatusReason.BadRequest, `fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${v}"`));
}

/**
 * The fields a kind knows at one place of an object: `field` gives what a key holds (`'any'` when it is not
 * checked further, undefined when the key is unknown), `items` what list elements are.
 */
export interface KnownFields {
  field(key: string): KnownFields | 'any' | undefined;
  items(): KnownFields | 'any';
}

/** One problem the strict decoders report. */
export type FieldProblem = { readonly unknown: string } | { readonly duplicate: string } | { readonly yamlLines: readonly string[] };

/** An unknown field problem for each path (custom resources: the pruned paths). */
export function unknownFieldProblems(paths: readonly string[]): FieldProblem[] {
  return paths.map((unknown) => ({ unknown }));
}

const child = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/**
 * The duplicate keys of a JSON text at any depth, in order of their second occurrence, interleaved with the
 * keys `known` does not have, in order of appearance. Malformed JSON yields what was found before the fault.
 */
export function jsonFieldProblems(text: string, known?: KnownFields): FieldProblem[] {
  const out: FieldProblem[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return text.slice(start + 1, i - 1);
    }
  };
  // `k`: what the schema says about this value; undefined checks nothing but duplicates.
  const value = (path: string, depth: number, k: KnownFields | 'any' | undefined, report: boolean): void => {
    ws();
    if (depth > 1000) throw new Error('too deep');
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      while (i < text.length) {
        ws();
        if (text[i] !== '"') throw new Error('bad key');
        const key = str();
        const p = child(path, key);
        if (seen.has(key) && report) out.push({ duplicate: p });
        seen.add(key);
        const sub = k === undefined || k === 'any' ? k : k.field(key);
        if (sub === undefined && k !== undefined && report) out.push({ unknown: p });
        ws();
        if (text[i] !== ':') throw new Error('bad colon');
        i++;
        // The decoder skips the value of an unknown key without looking into it.
        value(p, depth + 1, sub, report && !(sub === undefined && k !== undefined));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        throw new Error('bad object');
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      const items = k === undefined || k === 'any' ? k : k.items();
      for (let n = 0; i < text.length; n++) {
        value(`${path}[${n}]`, depth + 1, items, report);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        throw new Error('bad array');
      }
    } else if (c === '"') str();
    else while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
  };
  try {
    value('', 0, known, true);
  } catch {
    // a malformed body fails decoding elsewhere
  }
  return out;
}

/** The keys of a decoded value that `known` does not have, objects walked in sorted key order (YAML bodies). */
export function valueFieldProblems(v: unknown, known: KnownFields | 'any', path = ''): FieldProblem[] {
  if (known === 'any') return [];
  if (Array.isArray(v)) return v.flatMap((x, n) => valueFieldProblems(x, known.items(), `${path}[${n}]`));
  if (typeof v !== 'object' || v === null) return [];
  const out: FieldProblem[] = [];
  for (const key of Object.keys(v).sort()) {
    const sub = known.field(key);
    if (sub === undefined) out.push({ unknown: child(path, key) });
    else out.push(...valueFieldProblems((v as Record<string, unknown>)[key], sub, child(path, key)));
  }
  return out;
}

/** go-yaml's report of the keys a YAML text repeats in one mapping, with the line of each repetition; empty when none. */
export function yamlDuplicateProblems(text: string): FieldProblem[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false, lineCounter });
  const found: Array<{ at: number; text: string }> = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const keyNode = pair.key as Node | null;
        const key: unknown = isScalar(keyNode) ? keyNode.value : keyNode;
        const id = JSON.stringify(key) ?? String(key);
        if (seen.has(id)) {
          const at = keyNode?.range?.[0] ?? 0;
          found.push({ at, text: `line ${lineCounter.linePos(at).line}: key ${typeof key === 'string' ? JSON.stringify(key) : String(key)} already set in map` });
        }
        seen.add(id);
      }
    },
  });
  // The decoder meets them in document order.
  return found.length === 0 ? [] : [{ yamlLines: found.sort((a, b) => a.at - b.at).map((f) => f.text) }];
}

/**
 * The problems of a request body in its media type: JSON duplicates (and unknown fields, given `known`) in
 * one pass; YAML duplicates, then unknown fields of the decoded value.
 */
export function bodyFieldProblems(text: string, yamlBody: boolean, known: KnownFields | undefined): FieldProblem[] {
  if (!yamlBody) return jsonFieldProblems(text, known);
  const problems = yamlDuplicateProblems(text);
  if (known === undefined) return problems;
  let decoded: unknown;
  try {
    decoded = parseDocument(text, { version: '1.1', uniqueKeys: false }).toJS();
  } catch {
    // a malformed body fails decoding elsewhere
    return problems;
  }
  return [...problems, ...valueFieldProblems(decoded, known)];
}

/** One problem as the strict decoding error lists it. */
function problemText(p: FieldProblem): string {
  if ('unknown' in p) return `unknown field "${p.unknown}"`;
  if ('duplicate' in p) return `duplicate field "${p.duplicate}"`;
  return `yaml: unmarshal errors:\n  ${p.yamlLines.join('\n  ')}`;
}

/** 400 for Strict requests with problems, as the strict decoder fails them. */
export function strictDecodingError(kind: string, version: string, problems: readonly FieldProblem[]): StatusError {
  return new StatusError(newStatus(400, StatusReason.BadRequest, `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${problems.map(problemText).join(', ')}`));
}

/**
 * 422 for Strict patches with problems: the patch handler decodes the patched object strictly and reports
 * it as an invalid `patch` field, naming neither kind nor object.
 */
export function strictPatchError(patched: string, problems: readonly FieldProblem[]): StatusError {
  const message = `Invalid value: ${JSON.stringify(patched)}: strict decoding error: ${problems.map(problemText).join(', ')}`;
  return new StatusError(newStatus(422, StatusReason.Invalid, ` "" is invalid: patch: ${message}`, { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] }));
}

/**
 * 500 for an apply patch with fields its kind does not have: server-side apply cannot type the applied
 * object, whatever fieldValidation says (structured-merge-diff's `field not declared in schema`).
 */
export function typedPatchError(namespace: string, name: string, gvk: string, unknown: readonly string[]): StatusError {
  const errs = unknown.map((p) => `.${p}: field not declared in schema`);
  const detail = errs.length === 1 ? errs[0]! : `errors:\n  ${errs.join('\n  ')}`;
  // An error that is no Status: the handler answers 500 with its text and no reason.
  const { reason: _reason, ...status } = newStatus(500, StatusReason.InternalError, `failed to create typed patch object (${namespace}/${name}; ${gvk}): ${detail}`);
  return new StatusError(status);
}

/** The Warning header values of problems (RFC 7234 warn-code 299, no agent); YAML duplicates warn per line. */
export function warningHeaders(problems: readonly FieldProblem[]): string[] {
  return problems.flatMap((p) => ('yamlLines' in p ? p.yamlLines : [problemText(p)])).map((w) => `299 - ${JSON.stringify(w)}`);
}
