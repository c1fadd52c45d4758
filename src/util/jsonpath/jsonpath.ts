/**
 * client-go's JSONPath templates (k8s.io/client-go/util/jsonpath: parser.go, jsonpath.go, and the
 * comparisons of third_party/forked/golang/template), over JSON values: `{.a.b}` fields (a `\.`
 * escapes a dot), `['key']` and `['a','b']` keys, `[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]` and unions
 * `[0,2]`, `.*` wildcards, `..name` recursive descent, filters `[?(@.type=="Ready")]` with `==`, `!=`,
 * `<`, `>`, `<=`, `>=` between paths and literals (strings, integers, floats, booleans) and existence
 * filters `[?(@.x)]`, and literal text around the `{…}` actions. `{range}`/`{end}` are not supported.
 *
 * Values keep Go's kinds as unstructured JSON has them: a whole number is an int64, any other number
 * a float64; comparing an int with a float, or a string with a number, is an error as in Go's
 * templates, and an error anywhere makes the whole evaluation fail (FindResults returns no results).
 * Where upstream iterates a Go map (wildcards, recursive descent) the order is random; here it is the
 * object's key order.
 */

/** A template that does not parse; the message is client-go's. */
export class JsonPathParseError extends Error {
  /** Stable identifier. */
  readonly code = 'JsonPathParseError';
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathParseError';
  }
}

/** An evaluation that fails (an index out of bounds, a comparison of incompatible types, …). */
export class JsonPathEvalError extends Error {
  /** Stable identifier. */
  readonly code = 'JsonPathEvalError';
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathEvalError';
  }
}

interface Param {
  value: number;
  known: boolean;
  derived: boolean;
}

type Node =
  | { t: 'list'; nodes: Node[] }
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'array'; params: [Param, Param, Param] }
  | { t: 'filter'; left: Node & { t: 'list' }; right: Node & { t: 'list' }; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'union'; nodes: (Node & { t: 'list' })[] }
  | { t: 'identifier'; name: string };

type ListNode = Node & { t: 'list' };

const newList = (): ListNode => ({ t: 'list', nodes: [] });

const isTerminator = (c: string): boolean => c === '' || c === ' ' || c === '\t' || c === '\r' || c === '\n' || '.,[]$@{}'.includes(c);
const isAlphaNumeric = (c: string): boolean => c === '_' || /^[\p{L}\p{Nd}]$/u.test(c);
const isDigit = (c: string): boolean => /^\p{Nd}$/u.test(c);

const sliceOperator = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const dictKey = /^'([^']*)'$/;
const filterExpr = /^([^!<>=]+)([!<>=]+)(.+?)$/;

// strconv.Atoi: an optional sign and decimal digits within int64.
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The parser of parser.go, on code points as Go's on runes. */
class Parser {
  root: ListNode = newList();
  #input: string[] = [];
  #pos = 0;
  #start = 0;

  parse(text: string): ListNode {
    this.#input = [...text];
    this.root = newList();
    this.#pos = 0;
    this.#start = 0;
    this.#parseText(this.root);
    return this.root;
  }

  #rest(): string {
    return this.#input.slice(this.#pos).join('');
  }
  #consume(): string {
    const v = this.#input.slice(this.#start, this.#pos).join('');
    this.#start = this.#pos;
    return v;
  }
  #next(): string {
    if (this.#pos >= this.#input.length) {
      this.#pos++;
      return '';
    }
    return this.#input[this.#pos++]!;
  }
  #backup(): void {
    this.#pos--;
  }
  #peek(): string {
    const c = this.#next();
    this.#backup();
    return c;
  }

  #parseText(cur: ListNode): void {
    for (;;) {
      if (this.#rest().startsWith('{')) {
        if (this.#pos > this.#start) cur.nodes.push({ t: 'text', text: this.#consume() });
        this.#pos += 1;
        this.#consume();
        const list = newList();
        cur.nodes.push(list);
        this.#parseInside(list);
        return;
      }
      if (this.#next() === '') {
        this.#pos = Math.min(this.#pos, this.#input.length);
        break;
      }
    }
    if (this.#pos > this.#start) cur.nodes.push({ t: 'text', text: this.#consume() });
  }

  #parseInside(cur: ListNode): void {
    for (;;) {
      const rest = this.#rest();
      if (rest.startsWith('}')) {
        this.#pos += 1;
        this.#consume();
        this.#parseText(this.root);
        return;
      }
      if (rest.startsWith('[?(')) {
        this.#parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        const last = cur.nodes.at(-1);
        if (last?.t === 'recursive') throw new JsonPathParseError('invalid multiple recursive descent');
        this.#pos += 2;
        this.#consume();
        cur.nodes.push({ t: 'recursive' });
        if (isAlphaNumeric(this.#peek())) this.#parseField(cur);
        continue;
      }
      const c = this.#next();
      if (c === '' || c === '\r' || c === '\n') throw new JsonPathParseError('unclosed action');
      if (c === ' ' || c === '@' || c === '$') this.#consume();
      else if (c === '[') this.#parseArray(cur);
      else if (c === '"' || c === "'") this.#parseQuote(cur, c);
      else if (c === '.') this.#parseField(cur);
      else if (c === '+' || c === '-' || isDigit(c)) {
        this.#backup();
        this.#parseNumber(cur);
      } else if (isAlphaNumeric(c)) {
        this.#backup();
        this.#parseIdentifier(cur);
      } else throw new JsonPathParseError(`unrecognized character in action: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`);
    }
  }

  #parseIdentifier(cur: ListNode): void {
    while (!isTerminator(this.#next()));
    this.#backup();
    const v = this.#consume();
    cur.nodes.push(v === 'true' || v === 'false' ? { t: 'bool', value: v === 'true' } : { t: 'identifier', name: v });
  }

  #parseNumber(cur: ListNode): void {
    const c = this.#peek();
    if (c === '+' || c === '-') this.#next();
    for (;;) {
      const r = this.#next();
      if (r !== '.' && !isDigit(r)) {
        this.#backup();
        break;
      }
    }
    const v = this.#consume();
    const i = atoi(v);
    if (i !== undefined) cur.nodes.push({ t: 'int', value: i });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) cur.nodes.push({ t: 'float', value: Number(v) });
    else throw new JsonPathParseError(`cannot parse number ${v}`);
  }

  #parseArray(cur: ListNode): void {
    for (;;) {
      const c = this.#next();
      if (c === '' || c === '\n') throw new JsonPathParseError('unterminated array');
      if (c === ']') break;
    }
    let text = this.#consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ t: 'union', nodes: parts.map((p) => parseAction(`[${p.trim()}]`)) });
      return;
    }
    const key = dictKey.exec(text);
    if (key !== null) {
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }
    const m = sliceOperator.exec(text);
    if (m === null) throw new JsonPathParseError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') params[i]!.known = false;
        else {
          const n = atoi(v);
          if (n === undefined) throw new JsonPathParseError(`array index ${v} is not a number`);
          params[i] = { value: n, known: true, derived: false };
        }
      } else if (i === 1) params[1] = { value: params[0].value + 1, known: true, derived: true };
    }
    cur.nodes.push({ t: 'array', params });
  }

  #parseFilter(cur: ListNode): void {
    this.#pos += 3;
    this.#consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const c = this.#next();
      if (c === '' || c === '\n') throw new JsonPathParseError('unterminated filter');
      if (c === '"' || c === "'") {
        if (!begin) {
          begin = true;
          pair = c;
          continue;
        }
        if (this.#input[this.#pos - 2] !== '\\' && c === pair) end = true;
      } else if (c === ')' && begin === end) break;
    }
    if (this.#next() !== ']') throw new JsonPathParseError('unclosed array expect ]');
    const text = this.#consume().slice(0, -2);
    const m = filterExpr.exec(text);
    if (m === null) cur.nodes.push({ t: 'filter', left: parseAction(text), right: newList(), op: 'exists' });
    else cur.nodes.push({ t: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), op: m[2]! });
  }

  #parseQuote(cur: ListNode, quote: string): void {
    for (;;) {
      const c = this.#next();
      if (c === '' || c === '\n') throw new JsonPathParseError('unterminated quoted string');
      if (c === quote && this.#input[this.#pos - 2] !== '\\') break;
    }
    const v = this.#consume();
    cur.nodes.push({ t: 'text', text: unquote(v) });
  }

  #parseField(cur: ListNode): void {
    this.#consume();
    for (;;) {
      const c = this.#next();
      if (c === '\\') this.#next();
      else if (isTerminator(c)) {
        this.#backup();
        break;
      }
    }
    const v = this.#consume();
    cur.nodes.push(v === '*' ? { t: 'wildcard' } : { t: 'field', name: v.replaceAll('\\', '') });
  }
}

// UnquoteExtend: Go's string unquoting for double- or single-quoted strings.
function unquote(s: string): string {
  const q = s[0];
  const body = s.slice(1, -1);
  if (!body.includes('\\') && !body.includes(q!)) return body;
  try {
    return JSON.parse(`"${body.replace(/\\'/g, "'").replace(/(?<!\\)"/g, '\\"')}"`) as string;
  } catch {
    throw new JsonPathParseError(`unquote string ${s} error invalid syntax`);
  }
}

// parseAction: the list inside `{text}`.
function parseAction(text: string): ListNode {
  const root = new Parser().parse(`{${text}}`);
  return root.nodes[0] as ListNode;
}

/** A parsed template (jsonpath.New(name).Parse(text)). */
export interface JsonPathTemplate {
  readonly root: ListNode;
}

/** Parses a template such as `{.status.conditions[?(@.type=="Ready")].status}`; throws {@link JsonPathParseError}. */
export function parseJsonPath(text: string): JsonPathTemplate {
  return { root: new Parser().parse(text) };
}

// A value in Go's terms: `int` marks literals parsed as ints, which JSON numbers cannot tell apart.
type Val = unknown;
const isMap = (v: Val): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A float literal of a filter (`3.0` stays a float64 in Go, which a whole JS number cannot say). */
class FloatLiteral {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

type Kind = 'bool' | 'int' | 'float' | 'string';
function kindOf(v: Val): Kind {
  if (v instanceof FloatLiteral) return 'float';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  throw new JsonPathEvalError('invalid type for comparison');
}

/** Options of {@link findResults}. */
export interface FindOptions {
  /** Missing keys give no result instead of an error (AllowMissingKeys). Default false. */
  allowMissingKeys?: boolean;
}

/**
 * FindResults: the values each top-level node of the template yields on `data` (one list per node,
 * text nodes included). Throws {@link JsonPathEvalError}.
 */
export function findResults(tpl: JsonPathTemplate, data: unknown, options: FindOptions = {}): unknown[][] {
  const allowMissing = options.allowMissingKeys === true;
  const walk = (input: Val[], node: Node): Val[] => {
    switch (node.t) {
      case 'list': {
        let cur = input;
        for (const n of node.nodes) cur = walk(cur, n);
        return cur;
      }
      case 'text':
        return [node.text];
      case 'int':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new FloatLiteral(node.value));
      case 'bool':
        return input.map(() => node.value);
      case 'identifier':
        if (node.name === 'range' || node.name === 'end') throw new JsonPathEvalError(`${node.name} is not supported here`);
        throw new JsonPathEvalError(`unrecognized identifier ${node.name}`);
      case 'field': {
        if (input.length === 0) return [];
        const out: Val[] = [];
        for (const v of input) if (isMap(v) && Object.hasOwn(v, node.name)) out.push(v[node.name]);
        if (out.length === 0 && !allowMissing) throw new JsonPathEvalError(`${node.name} is not found`);
        return out;
      }
      case 'array': {
        const out: Val[] = [];
        for (const v of input) {
          if (v === null || v === undefined) continue;
          if (!Array.isArray(v)) throw new JsonPathEvalError(`${goTypeName(v)} is not array or slice`);
          const [p0, p1, p2] = node.params.map((p) => ({ ...p })) as [Param, Param, Param];
          if (!p0.known) p0.value = 0;
          if (p0.value < 0) p0.value += v.length;
          if (!p1.known) p1.value = v.length;
          if (p1.value < 0 || (p1.value === 0 && p1.derived)) p1.value += v.length;
          if (p1.value === p0.value) return out;
          if (p0.value >= v.length || p0.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p0.value}, length ${v.length}`);
          if (p1.value > v.length || p1.value < 0) throw new JsonPathEvalError(`array index out of bounds: index ${p1.value - 1}, length ${v.length}`);
          if (p0.value > p1.value) throw new JsonPathEvalError(`starting index ${p0.value} is greater than ending index ${p1.value}`);
          let step = 1;
          if (p2.known) {
            if (p2.value <= 0) throw new JsonPathEvalError('step must be > 0');
            step = p2.value;
          }
          const slice = v.slice(p0.value, p1.value);
          for (let i = 0; i < slice.length; i += step) out.push(slice[i]);
        }
        return out;
      }
      case 'union':
        return node.nodes.flatMap((l) => walk(input, l));
      case 'wildcard': {
        const out: Val[] = [];
        for (const v of input) {
          if (isMap(v)) out.push(...Object.values(v));
          else if (Array.isArray(v)) out.push(...(v as Val[]));
          else if (typeof v === 'string') out.push(...[...Buffer.from(v)]);
        }
        return out;
      }
      case 'recursive': {
        const out: Val[] = [];
        const visit = (values: Val[]): void => {
          for (const v of values) {
            const children = isMap(v) ? Object.values(v) : Array.isArray(v) ? (v as Val[]) : typeof v === 'string' ? [...Buffer.from(v)] : [];
            if (children.length === 0) continue;
            out.push(v);
            visit(children);
          }
        };
        visit(input);
        return out;
      }
      case 'filter': {
        const out: Val[] = [];
        for (const v of input) {
          if (!Array.isArray(v)) throw new JsonPathEvalError(`${goPrint(v)} is not array or slice and cannot be filtered`);
          for (const item of v as Val[]) {
            let lefts: Val[];
            try {
              lefts = walk([item], node.left);
            } catch (err) {
              if (node.op === 'exists') continue;
              throw err;
            }
            if (node.op === 'exists') {
              if (lefts.length > 0) out.push(item);
              continue;
            }
            if (lefts.length === 0) continue;
            if (lefts.length > 1) throw new JsonPathEvalError('can only compare one element at a time');
            const rights = walk([item], node.right);
            if (rights.length === 0) continue;
            if (rights.length > 1) throw new JsonPathEvalError('can only compare one element at a time');
            if (compare(lefts[0], rights[0], node.op)) out.push(item);
          }
        }
        return out;
      }
    }
  };
  return tpl.root.nodes.map((n) => walk([data], n));
}

// The template package's eq/lt family on two basic values.
function compare(left: Val, right: Val, op: string): boolean {
  const ka = kindOf(left);
  const kb = kindOf(right);
  const a = left instanceof FloatLiteral ? left.value : left;
  const b = right instanceof FloatLiteral ? right.value : right;
  const equal = (): boolean => {
    if (ka !== kb) throw new JsonPathEvalError('incompatible types for comparison');
    return a === b;
  };
  const less = (): boolean => {
    if (ka !== kb) throw new JsonPathEvalError('incompatible types for comparison');
    if (ka === 'bool') throw new JsonPathEvalError('invalid type for comparison');
    return (a as number | string) < (b as number | string);
  };
  switch (op) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    case '<':
      return less();
    case '<=':
      return less() || equal();
    case '>':
      return !(less() || equal());
    case '>=':
      return !less();
    default:
      throw new JsonPathEvalError(`unrecognized filter operator ${op}`);
  }
}

function goTypeName(v: Val): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return 'map[string]interface {}';
}

/** Go's `%v` of a float64 (strconv's 'g' at the shortest precision: the exponent form below 1e-4 and from 1e6 on). */
function goFloat(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

// fmt.Fprint of a JSON scalar as Go holds it (int64, float64, string, bool; nil prints as the template's <no value>).
function goPrint(v: Val): string {
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? String(v) : goFloat(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return goJsonMarshal(v);
}

/** encoding/json's Marshal of a JSON value: map keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJsonMarshal(v: unknown): string {
  const sorted = (x: unknown): unknown => (Array.isArray(x) ? x.map(sorted) : isMap(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted(x[k])])) : x);
  return JSON.stringify(sorted(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * PrintResults (without JSON output): maps and lists as JSON, anything else as Go prints it, separated
 * by spaces.
 */
export function printResults(values: readonly unknown[]): string {
  return values.map((v) => (v instanceof FloatLiteral ? goFloat(v.value) : typeof v === 'object' && v !== null ? goJsonMarshal(v) : goPrint(v))).join(' ');
}
