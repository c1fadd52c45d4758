/**
 * JSON parsing as kube-apiserver's decoder (Go's encoding/json, through sigs.k8s.io/json) does it, where
 * that shows in answers: syntax errors worded as Go's scanner words them (`invalid character 'x'
 * looking for beginning of value`, `unexpected end of JSON input`), and a key that appears twice in an
 * object merged into the first occurrence, as decoding into a Go struct or map does, instead of
 * replacing it.
 */

/** A JSON syntax error in Go's words. */
export class GoJsonSyntaxError extends Error {
  readonly code = 'ERR_GO_JSON_SYNTAX';
  /** Byte offset of the error (Go's SyntaxError.Offset). */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.name = 'GoJsonSyntaxError';
    this.offset = offset;
  }
}

/** Go's quoteChar: how the scanner shows the offending character. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const code = c.codePointAt(0)!;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 92: '\\\\' };
  if (named[code] !== undefined) return `'${named[code]}'`;
  // strconv.Quote: control characters below 0x80 as \x, other non-printable ones as \u.
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  if (code >= 0x80 && code < 0xa0) return `'\\u${code.toString(16).padStart(4, '0')}'`;
  return `'${c}'`;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merges a repeated key's value into the first one: objects field by field, anything else replaced. */
function mergeDuplicate(first: unknown, second: unknown): unknown {
  if (!isObj(first) || !isObj(second)) return second;
  const out: Obj = { ...first };
  for (const [k, v] of Object.entries(second)) out[k] = k in out ? mergeDuplicate(out[k], v) : v;
  return out;
}

class Parser {
  readonly #s: string;
  #i = 0;

  constructor(s: string) {
    this.#s = s;
  }

  #fail(context: string): never {
    if (this.#i >= this.#s.length) throw new GoJsonSyntaxError('unexpected end of JSON input', this.#s.length);
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(this.#s[this.#i]!)} ${context}`, this.#i + 1);
  }

  #ws(): void {
    const s = this.#s;
    while (this.#i < s.length) {
      const c = s.charCodeAt(this.#i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.#i++;
      else break;
    }
  }

  parseTop(): unknown {
    this.#ws();
    const v = this.#value();
    this.#ws();
    if (this.#i < this.#s.length) this.#fail('after top-level value');
    return v;
  }

  #value(): unknown {
    this.#ws();
    const c = this.#s[this.#i];
    if (c === '{') return this.#object();
    if (c === '[') return this.#array();
    if (c === '"') return this.#string();
    if (c === 't') return this.#literal('true', true);
    if (c === 'f') return this.#literal('false', false);
    if (c === 'n') return this.#literal('null', null);
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.#number();
    return this.#fail('looking for beginning of value');
  }

  #literal(word: string, value: unknown): unknown {
    for (let k = 0; k < word.length; k++) {
      if (this.#s[this.#i] !== word[k]) this.#fail(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
      this.#i++;
    }
    return value;
  }

  #number(): number {
    const s = this.#s;
    const start = this.#i;
    if (s[this.#i] === '-') {
      this.#i++;
      if (!(s[this.#i]! >= '0' && s[this.#i]! <= '9')) this.#fail('in numeric literal');
    }
    if (s[this.#i] === '0') this.#i++;
    else while (s[this.#i]! >= '0' && s[this.#i]! <= '9') this.#i++;
    if (s[this.#i] === '.') {
      this.#i++;
      if (!(s[this.#i]! >= '0' && s[this.#i]! <= '9')) this.#fail('after decimal point in numeric literal');
      while (s[this.#i]! >= '0' && s[this.#i]! <= '9') this.#i++;
    }
    if (s[this.#i] === 'e' || s[this.#i] === 'E') {
      this.#i++;
      if (s[this.#i] === '+' || s[this.#i] === '-') this.#i++;
      if (!(s[this.#i]! >= '0' && s[this.#i]! <= '9')) this.#fail('in exponent of numeric literal');
      while (s[this.#i]! >= '0' && s[this.#i]! <= '9') this.#i++;
    }
    return Number(s.slice(start, this.#i));
  }

  #string(): string {
    const s = this.#s;
    this.#i++;
    let out = '';
    let run = this.#i;
    for (;;) {
      if (this.#i >= s.length) this.#fail('');
      const c = s.charCodeAt(this.#i);
      if (c === 0x22) {
        out += s.slice(run, this.#i);
        this.#i++;
        return out;
      }
      if (c < 0x20) this.#fail('in string literal');
      if (c !== 0x5c) {
        this.#i++;
        continue;
      }
      out += s.slice(run, this.#i);
      this.#i++;
      const e = s[this.#i];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && simple[e] !== undefined) {
        out += simple[e];
        this.#i++;
      } else if (e === 'u') {
        this.#i++;
        for (let k = 0; k < 4; k++) if (!/[0-9a-fA-F]/.test(s[this.#i + k] ?? '')) {
          this.#i += k;
          this.#fail('in \\u hexadecimal character escape');
        }
        out += String.fromCharCode(parseInt(s.slice(this.#i, this.#i + 4), 16));
        this.#i += 4;
      } else this.#fail('in string escape code');
      run = this.#i;
    }
  }

  #object(): Obj {
    this.#i++;
    const out: Obj = {};
    this.#ws();
    if (this.#s[this.#i] === '}') {
      this.#i++;
      return out;
    }
    for (;;) {
      this.#ws();
      if (this.#s[this.#i] !== '"') this.#fail('looking for beginning of object key string');
      const key = this.#string();
      this.#ws();
      if (this.#s[this.#i] !== ':') this.#fail('after object key');
      this.#i++;
      const v = this.#value();
      if (Object.prototype.hasOwnProperty.call(out, key)) out[key] = mergeDuplicate(out[key], v);
      else out[key] = v;
      this.#ws();
      const c = this.#s[this.#i];
      if (c === ',') {
        this.#i++;
        continue;
      }
      if (c === '}') {
        this.#i++;
        return out;
      }
      this.#fail('after object key:value pair');
    }
  }

  #array(): unknown[] {
    this.#i++;
    const out: unknown[] = [];
    this.#ws();
    if (this.#s[this.#i] === ']') {
      this.#i++;
      return out;
    }
    for (;;) {
      out.push(this.#value());
      this.#ws();
      const c = this.#s[this.#i];
      if (c === ',') {
        this.#i++;
        continue;
      }
      if (c === ']') {
        this.#i++;
        return out;
      }
      this.#fail('after array element');
    }
  }
}

/** Parses JSON text as Go's decoder sees it; throws {@link GoJsonSyntaxError} with Go's message for malformed input. */
export function parseGoJson(text: string): unknown {
  return new Parser(text).parseTop();
}
