/**
 * Label selectors, mirroring k8s.io/apimachinery/pkg/labels: the same grammar
 * (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`), the same validation of
 * keys and values, and the same matching rules (a `!=` or `notin` requirement matches objects that lack
 * the label). Parsed requirements are kept sorted by key, as upstream does.
 */
import type { LabelSelector as MetaLabelSelector } from '../api/meta/v1.ts';
import { KubeloomError } from './errors.ts';

/** A selector operator (selection.Operator). */
export const Operator = {
  /** `!key`: the label is absent. */
  DoesNotExist: '!',
  /** `key=value`. */
  Equals: '=',
  /** `key==value` (same as `=`). */
  DoubleEquals: '==',
  /** `key in (a,b)`. */
  In: 'in',
  /** `key!=value` (also matches objects without the label). */
  NotEquals: '!=',
  /** `key notin (a,b)` (also matches objects without the label). */
  NotIn: 'notin',
  /** `key`: the label is present. */
  Exists: 'exists',
  /** `key>n`: an integer label greater than n. */
  GreaterThan: 'gt',
  /** `key<n`: an integer label less than n. */
  LessThan: 'lt',
} as const;

/** One of the {@link Operator} values. */
export type OperatorValue = (typeof Operator)[keyof typeof Operator];

/** Labels of an object: a map from key to value. */
export type Labels = Readonly<Record<string, string>>;

/** Thrown for a selector string or LabelSelector that does not parse or validate. */
export class SelectorParseError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SELECTOR_PARSE', message);
  }
}

/** One requirement of a label selector: a key, an operator and the values it compares with. */
export class Requirement {
  /** The label key. */
  readonly key: string;
  /** How the label is compared. */
  readonly operator: OperatorValue;
  /** Values, sorted and de-duplicated (empty for exists / does-not-exist). */
  readonly values: readonly string[];
  readonly #valueSet: ReadonlySet<string>;

  /** Validates and builds a requirement (labels.NewRequirement); throws {@link SelectorParseError}. */
  constructor(key: string, operator: OperatorValue, values: readonly string[]) {
    validateLabelKey(key);
    switch (operator) {
      case Operator.In:
      case Operator.NotIn:
        if (values.length === 0) throw new SelectorParseError(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
        break;
      case Operator.Equals:
      case Operator.DoubleEquals:
      case Operator.NotEquals:
        if (values.length !== 1) throw new SelectorParseError(`values: Invalid value: ${JSON.stringify(values)}: exact-match compatibility requires one single value`);
        break;
      case Operator.Exists:
      case Operator.DoesNotExist:
        if (values.length !== 0) throw new SelectorParseError(`values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`);
        break;
      case Operator.GreaterThan:
      case Operator.LessThan:
        if (values.length !== 1) throw new SelectorParseError(`values: Invalid value: ${JSON.stringify(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
        if (!/^-?\d+$/.test(values[0]!)) throw new SelectorParseError(`values[0]: Invalid value: "${values[0]}": for 'Gt', 'Lt' operators, the value must be an integer`);
        break;
      default:
        throw new SelectorParseError(`operator: Unsupported value: "${String(operator)}"`);
    }
    if (operator !== Operator.GreaterThan && operator !== Operator.LessThan) {
      for (const v of values) validateLabelValue(key, v);
    }
    this.key = key;
    this.operator = operator;
    this.values = [...new Set(values)].sort();
    this.#valueSet = new Set(values);
  }

  /** True when `labels` satisfy this requirement. */
  matches(labels: Labels | undefined): boolean {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, this.key);
    const value = has ? labels[this.key]! : undefined;
    switch (this.operator) {
      case Operator.In:
      case Operator.Equals:
      case Operator.DoubleEquals:
        return value !== undefined && this.#valueSet.has(value);
      case Operator.NotIn:
      case Operator.NotEquals:
        return value === undefined || !this.#valueSet.has(value);
      case Operator.Exists:
        return has;
      case Operator.DoesNotExist:
        return !has;
      case Operator.GreaterThan:
      case Operator.LessThan: {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const left = BigInt(value);
        const right = BigInt(this.values[0]!);
        return this.operator === Operator.GreaterThan ? left > right : left < right;
      }
    }
  }

  /** The requirement in selector syntax (e.g. `app in (a,b)`). */
  toString(): string {
    switch (this.operator) {
      case Operator.DoesNotExist:
        return `!${this.key}`;
      case Operator.Exists:
        return this.key;
      case Operator.In:
        return `${this.key} in (${this.values.join(',')})`;
      case Operator.NotIn:
        return `${this.key} notin (${this.values.join(',')})`;
      case Operator.GreaterThan:
        return `${this.key}>${this.values[0]}`;
      case Operator.LessThan:
        return `${this.key}<${this.values[0]}`;
      default:
        return `${this.key}${this.operator}${this.values[0]}`;
    }
  }
}

/** A parsed label selector: a conjunction of requirements. */
export class LabelSelector {
  readonly #requirements: readonly Requirement[];
  readonly #nothing: boolean;

  /** Builds a selector from requirements (sorted by key, as upstream). Use {@link parseSelector} for strings. */
  constructor(requirements: readonly Requirement[], options: { nothing?: boolean } = {}) {
    this.#requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#nothing = options.nothing ?? false;
  }

  /** True when every requirement matches `labels`. */
  matches(labels: Labels | undefined): boolean {
    if (this.#nothing) return false;
    for (const r of this.#requirements) if (!r.matches(labels)) return false;
    return true;
  }

  /** True when the selector has no requirements (it matches everything). */
  empty(): boolean {
    return !this.#nothing && this.#requirements.length === 0;
  }

  /** The requirements, sorted by key. */
  requirements(): readonly Requirement[] {
    return this.#requirements;
  }

  /** Returns a new selector with `requirement` added. */
  add(requirement: Requirement): LabelSelector {
    return new LabelSelector([...this.#requirements, requirement], { nothing: this.#nothing });
  }

  /**
   * For equality-only selectors, the exact value each key must have (used by indexers to narrow by label).
   * Returns undefined for a key that is not constrained to one value.
   */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.#requirements) {
      if (r.key !== key) continue;
      if ((r.operator === Operator.Equals || r.operator === Operator.DoubleEquals || r.operator === Operator.In) && r.values.length === 1) return r.values[0];
    }
    return undefined;
  }

  /** The selector in its canonical string form (requirements sorted by key, comma separated). */
  toString(): string {
    return this.#requirements.map((r) => r.toString()).join(',');
  }
}

/** A selector that matches every object (labels.Everything). */
export function everything(): LabelSelector {
  return new LabelSelector([]);
}

/** A selector that matches no object (labels.Nothing); a nil metav1.LabelSelector converts to it. */
export function nothing(): LabelSelector {
  return new LabelSelector([], { nothing: true });
}

/** A selector requiring every key of `set` to equal its value (labels.SelectorFromSet). */
export function selectorFromSet(set: Labels | undefined): LabelSelector {
  if (set === undefined) return everything();
  return new LabelSelector(Object.entries(set).map(([k, v]) => new Requirement(k, Operator.Equals, [v])));
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateLabelKey(key: string): void {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) throw new SelectorParseError(`key: Invalid value: "${key}": prefix part must be non-empty`);
    if (prefix.length > 253 || !dnsSubdomain.test(prefix)) {
      throw new SelectorParseError(`key: Invalid value: "${key}": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
    }
  } else if (parts.length > 2) {
    throw new SelectorParseError(`key: Invalid value: "${key}": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'`);
  }
  if (name.length === 0) throw new SelectorParseError(`key: Invalid value: "${key}": name part must be non-empty`);
  if (name.length > 63) throw new SelectorParseError(`key: Invalid value: "${key}": name part must be no more than 63 characters`);
  if (!qualifiedNamePart.test(name)) {
    throw new SelectorParseError(`key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
}

function validateLabelValue(key: string, value: string): void {
  if (value.length > 63) throw new SelectorParseError(`values[0][${key}]: Invalid value: "${value}": must be no more than 63 characters`);
  if (value.length > 0 && !qualifiedNamePart.test(value)) {
    throw new SelectorParseError(`values[0][${key}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
}

type Token =
  | { kind: 'identifier'; text: string }
  | { kind: 'in' | 'notin' | '!' | '=' | '==' | '!=' | '>' | '<' | '(' | ')' | ',' | 'end'; text: string };

const specialChars = new Set(['!', '=', '(', ')', ',', '>', '<']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (specialChars.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: two, text: two });
        i += 2;
      } else {
        tokens.push({ kind: c as '!' | '=' | '(' | ')' | ',' | '>' | '<', text: c });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !specialChars.has(input[j]!) && !/\s/.test(input[j]!)) j++;
    const text = input.slice(i, j);
    tokens.push(text === 'in' || text === 'notin' ? { kind: text, text } : { kind: 'identifier', text });
    i = j;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

class SelectorParser {
  readonly #tokens: Token[];
  #pos = 0;

  constructor(input: string) {
    this.#tokens = tokenize(input);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.#peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.#requirement());
      const next = this.#next();
      if (next.kind === 'end') return requirements;
      if (next.kind !== ',') throw new SelectorParseError(`found '${next.text}', expected: ',' or 'end of string'`);
      if (this.#peek().kind === 'end') throw new SelectorParseError(`found '', expected: identifier after ','`);
    }
  }

  #peek(): Token {
    return this.#tokens[this.#pos]!;
  }

  #next(): Token {
    return this.#tokens[this.#pos++]!;
  }

  #requirement(): Requirement {
    const first = this.#next();
    if (first.kind === '!') {
      const key = this.#next();
      if (key.kind !== 'identifier') throw new SelectorParseError(`unable to parse requirement: found '${key.text}', expected: identifier`);
      return new Requirement(key.text, Operator.DoesNotExist, []);
    }
    if (first.kind !== 'identifier') throw new SelectorParseError(`unable to parse requirement: found '${first.text}', expected: !, identifier, or 'end of string'`);
    const after = this.#peek();
    if (after.kind === ',' || after.kind === 'end') return new Requirement(first.text, Operator.Exists, []);
    const op = this.#next();
    switch (op.kind) {
      case 'in':
      case 'notin':
        return new Requirement(first.text, op.kind === 'in' ? Operator.In : Operator.NotIn, this.#valueSet());
      case '=':
      case '==':
      case '!=':
        return new Requirement(first.text, op.kind === '=' ? Operator.Equals : op.kind === '==' ? Operator.DoubleEquals : Operator.NotEquals, [this.#exactValue()]);
      case '>':
      case '<':
        return new Requirement(first.text, op.kind === '>' ? Operator.GreaterThan : Operator.LessThan, [this.#exactValue()]);
      default:
        throw new SelectorParseError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  #exactValue(): string {
    const t = this.#peek();
    if (t.kind === ',' || t.kind === 'end') return '';
    this.#pos++;
    if (t.kind === 'identifier' || t.kind === 'in' || t.kind === 'notin') return t.text;
    throw new SelectorParseError(`found '${t.text}', expected: identifier`);
  }

  #valueSet(): string[] {
    const open = this.#next();
    if (open.kind !== '(') throw new SelectorParseError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      const t = this.#next();
      if (t.kind === 'identifier' || t.kind === 'in' || t.kind === 'notin') {
        values.push(t.text);
        const sep = this.#next();
        if (sep.kind === ')') return values;
        if (sep.kind !== ',') throw new SelectorParseError(`found '${sep.text}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        values.push('');
      } else if (t.kind === ')') {
        // "()" and a trailing "," both denote the empty value, as upstream's parser reads them.
        if (values.length === 0 || this.#tokens[this.#pos - 2]?.kind === ',') values.push('');
        return values;
      } else {
        throw new SelectorParseError(`found '${t.text}', expected: ',', ')' or identifier`);
      }
    }
  }
}

/**
 * Parses a label selector string (labels.Parse). The empty string selects everything.
 * @throws SelectorParseError with upstream-like messages for malformed input.
 * @example parseSelector('app=web,tier in (frontend,cache),!legacy').matches({ app: 'web', tier: 'cache' }) // true
 */
export function parseSelector(selector: string): LabelSelector {
  return new LabelSelector(new SelectorParser(selector).parse());
}

/**
 * Converts a metav1.LabelSelector (matchLabels + matchExpressions) to a selector
 * (metav1.LabelSelectorAsSelector): undefined selects nothing, an empty one selects everything.
 */
export function labelSelectorAsSelector(selector: MetaLabelSelector | undefined | null): LabelSelector {
  if (selector === undefined || selector === null) return nothing();
  const requirements: Requirement[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) requirements.push(new Requirement(k, Operator.Equals, [v]));
  for (const expr of selector.matchExpressions ?? []) {
    const ops: Record<string, OperatorValue> = { In: Operator.In, NotIn: Operator.NotIn, Exists: Operator.Exists, DoesNotExist: Operator.DoesNotExist };
    const op = ops[expr.operator];
    if (op === undefined) throw new SelectorParseError(`"${expr.operator}" is not a valid label selector operator`);
    requirements.push(new Requirement(expr.key, op, expr.values ?? []));
  }
  return new LabelSelector(requirements);
}
