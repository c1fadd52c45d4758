/**
 * Field selectors, mirroring k8s.io/apimachinery/pkg/fields: comma-separated `field=value`,
 * `field==value` or `field!=value` terms, with `\,`, `\=` and `\\` escapes in values.
 * A missing field reads as the empty string, as upstream's fields.Set does.
 */
import { KubeloomError } from './errors.ts';

/** Thrown for a field selector that does not parse. */
export class FieldSelectorParseError extends KubeloomError {
  constructor(message: string) {
    super('ERR_FIELD_SELECTOR_PARSE', message);
  }
}

/** One term of a field selector. `==` is normalised to `=`. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name`. */
  readonly field: string;
  /** `=` (equals) or `!=` (does not equal). */
  readonly operator: '=' | '!=';
  /** The value compared with. */
  readonly value: string;
}

/** Field values of an object, by field path (e.g. `metadata.name`). */
export type Fields = Readonly<Record<string, string>>;

/** A parsed field selector: a conjunction of terms. */
export class FieldSelector {
  readonly #requirements: readonly FieldRequirement[];

  /** Builds a selector from terms; use {@link parseFieldSelector} for strings. */
  constructor(requirements: readonly FieldRequirement[]) {
    this.#requirements = requirements;
  }

  /** True when every term matches `fields`. */
  matches(fields: Fields): boolean {
    for (const r of this.#requirements) {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field]! : '';
      if ((actual === r.value) !== (r.operator === '=')) return false;
    }
    return true;
  }

  /** True when the selector has no terms (it matches everything). */
  empty(): boolean {
    return this.#requirements.length === 0;
  }

  /** The terms in their original order. */
  requirements(): readonly FieldRequirement[] {
    return this.#requirements;
  }

  /** The value a field must equal, when the selector pins it with `=` (fields.Selector.RequiresExactMatch). */
  requiresExactMatch(field: string): string | undefined {
    return this.#requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** The canonical string form, values re-escaped. */
  toString(): string {
    return this.#requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** Escapes `\`, `,` and `=` in a field selector value (fields.EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\' && i + 1 < selector.length) {
      current += c + selector[i + 1]!;
      i++;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  terms.push(current);
  return terms;
}

function unescapeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const next = value[i + 1];
      if (next === undefined || !'\\,='.includes(next)) throw new FieldSelectorParseError(`invalid field selector value "${value}": invalid escape sequence`);
      out += next;
      i++;
    } else if (c === ',' || c === '=') {
      throw new FieldSelectorParseError(`invalid field selector value "${value}": unescaped '${c}'`);
    } else {
      out += c;
    }
  }
  return out;
}

/** Splits a term at its first unescaped operator; at one position `!=` and `==` win over `=`. */
function splitTerm(term: string): { field: string; operator: '=' | '!='; rest: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const c = term[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', rest: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector (fields.ParseSelector). The empty string selects everything.
 * @throws FieldSelectorParseError for a term without an operator or a bad escape.
 * @example parseFieldSelector('metadata.name=web,status.phase!=Running')
 */
export function parseFieldSelector(selector: string): FieldSelector {
  if (selector.trim() === '') return new FieldSelector([]);
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(selector)) {
    if (term === '') continue;
    const match = splitTerm(term);
    if (match === undefined) throw new FieldSelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
    requirements.push({ field: match.field, operator: match.operator, value: unescapeValue(match.rest) });
  }
  return new FieldSelector(requirements);
}

/** A selector requiring each field of `set` to equal its value (fields.SelectorFromSet). */
export function fieldSelectorFromSet(set: Fields): FieldSelector {
  return new FieldSelector(Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })));
}
