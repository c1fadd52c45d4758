/**
 * The Kubernetes CEL libraries x-kubernetes-validations rules commonly use, registered on an environment
 * (k8s.io/apiserver/pkg/cel/library): lists (isSorted, sum, min, max, indexOf, lastIndexOf), regex (find,
 * findAll, and matches on RE2 as upstream), URLs (isURL, url with getScheme/getHost/getHostname/getPort/
 * getEscapedPath/getQuery) and quantities (isQuantity, quantity with compareTo/isLessThan/isGreaterThan/
 * asInteger/asApproximateFloat/sign/add/sub), sets (sets.contains, sets.equivalent, sets.intersects), and cel-go's
 * string() and int() of timestamps and durations, and the string extensions cel-js lacks (charAt, replace); the
 * others (lowerAscii, upperAscii, indexOf, lastIndexOf, split, substring, trim, join) come with cel-js.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compilePattern } from '../schema/validation.ts';
import { celEquals } from './types.ts';

function compareCel(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
}

function regex(pattern: string): NonNullable<ReturnType<typeof compilePattern>> {
  const re = compilePattern(pattern);
  if (re === null) throw new Error(`invalid regular expression: ${pattern}`);
  return re;
}

/** A parsed URL, as the url() type of the Kubernetes URL library. */
export class KubeUrl {
  readonly url: URL;
  constructor(url: URL) {
    this.url = url;
  }
}

function parseUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

// resource.Quantity suffixes: binary SI, decimal SI and decimal exponents.
const quantityPattern = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const multipliers: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60, n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A resource quantity, as the quantity() type of the Kubernetes quantity library (compared by approximate value). */
export class KubeQuantity {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

function parseQuantity(s: string): KubeQuantity | undefined {
  const m = quantityPattern.exec(s);
  if (m === null) return undefined;
  const suffix = m[2] ?? '';
  const mult = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : multipliers[suffix];
  if (mult === undefined) return undefined;
  return new KubeQuantity(Number(m[1]) * mult);
}

function quantity(s: string): KubeQuantity {
  const q = parseQuantity(s);
  if (q === undefined) throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  return q;
}

/**
 * The receiver of the sets library's functions: cel-js has no namespaced functions, so `sets.contains(a, b)` is
 * a method of a variable `sets` of this type, which every evaluation binds to {@link celSets}.
 */
export class CelSets {}

/** The value of the `sets` variable. */
export const celSets = new CelSets();

/** Registers the Kubernetes CEL libraries on `env`. */
export function registerKubernetesLibrary(env: Environment): void {
  for (const t of ['int', 'double', 'string']) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => l.every((x, i) => i === 0 || compareCel(l[i - 1], x) <= 0));
    env.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => {
      if (l.length === 0) throw new Error('min called on empty list');
      return l.reduce((a, b) => (compareCel(a, b) <= 0 ? a : b));
    });
    env.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => {
      if (l.length === 0) throw new Error('max called on empty list');
      return l.reduce((a, b) => (compareCel(a, b) >= 0 ? a : b));
    });
    env.registerFunction(`list<${t}>.indexOf(${t}): int`, (l: unknown[], x: unknown) => BigInt(l.findIndex((y) => compareCel(y, x) === 0)));
    env.registerFunction(`list<${t}>.lastIndexOf(${t}): int`, (l: unknown[], x: unknown) => BigInt(l.findLastIndex((y) => compareCel(y, x) === 0)));
  }
  env.registerFunction('list<int>.sum(): int', (l: bigint[]) => l.reduce((a, b) => a + b, 0n));
  env.registerFunction('list<double>.sum(): double', (l: number[]) => l.reduce((a, b) => a + b, 0));
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    const m = regex(p).matcher(s);
    return m.find() ? (m.group() ?? '') : '';
  });
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => {
    const out: string[] = [];
    const m = regex(p).matcher(s);
    while (m.find()) out.push(m.group() ?? '');
    return out;
  });
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => {
    const out: string[] = [];
    const m = regex(p).matcher(s);
    while ((n < 0n || BigInt(out.length) < n) && m.find()) out.push(m.group() ?? '');
    return out;
  });
  env.registerFunction('isURL(string): bool', (s: string) => parseUrl(s) !== undefined);
  env.registerType('URL', KubeUrl);
  env.registerFunction('url(string): URL', (s: string) => {
    const u = parseUrl(s);
    if (u === undefined) throw new Error(`URL parse error during conversion from string: ${s}`);
    return new KubeUrl(u);
  });
  env.registerFunction('URL.getScheme(): string', (u: KubeUrl) => u.url.protocol.replace(/:$/, ''));
  env.registerFunction('URL.getHost(): string', (u: KubeUrl) => u.url.host);
  env.registerFunction('URL.getHostname(): string', (u: KubeUrl) => u.url.hostname.replace(/^\[|\]$/g, ''));
  env.registerFunction('URL.getPort(): string', (u: KubeUrl) => u.url.port);
  env.registerFunction('URL.getEscapedPath(): string', (u: KubeUrl) => u.url.pathname);
  env.registerFunction('URL.getQuery(): map<string, list<string>>', (u: KubeUrl) => {
    const m = new Map<string, string[]>();
    for (const [k, v] of u.url.searchParams) m.set(k, [...(m.get(k) ?? []), v]);
    return m;
  });
  // cel-go's string extensions cel-js lacks (ext.Strings: charAt and replace), on code points as cel-go counts them.
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  const replace = (s: string, from: string, to: string, n: bigint): string => {
    if (n < 0n) return s.split(from).join(to);
    let out = s;
    let at = 0;
    for (let k = 0n; k < n; k++) {
      const found = out.indexOf(from, at);
      if (found < 0) break;
      out = out.slice(0, found) + to + out.slice(found + from.length);
      at = found + to.length + (from === '' ? 1 : 0);
    }
    return out;
  };
  env.registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => replace(s, from, to, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  // cel-go's conversions of timestamps and durations, which cel-js lacks.
  env.registerFunction('string(google.protobuf.Timestamp): string', (t: Date) => t.toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z'));
  env.registerFunction('int(google.protobuf.Timestamp): int', (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));
  env.registerFunction('string(google.protobuf.Duration): string', (d: { seconds: bigint; nanos: number }) => `${d.nanos === 0 ? d.seconds : (Number(d.seconds) + d.nanos / 1e9 * (d.seconds < 0n ? -1 : 1)).toString()}s`);
  // Sets (k8s.io/apiserver/pkg/cel/library/sets.go): lists taken as sets, elements compared with CEL equality.
  env.registerType('k8s.Sets', CelSets);
  env.registerVariable('sets', 'k8s.Sets');
  const has = (list: unknown[], x: unknown): boolean => list.some((y) => celEquals(x, y));
  env.registerFunction('k8s.Sets.contains(list<dyn>, list<dyn>): bool', (_: CelSets, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)));
  env.registerFunction('k8s.Sets.equivalent(list<dyn>, list<dyn>): bool', (_: CelSets, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)) && a.every((x) => has(b, x)));
  env.registerFunction('k8s.Sets.intersects(list<dyn>, list<dyn>): bool', (_: CelSets, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)));
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  env.registerType('Quantity', KubeQuantity);
  env.registerFunction('quantity(string): Quantity', quantity);
  env.registerFunction('Quantity.compareTo(Quantity): int', (a: KubeQuantity, b: KubeQuantity) => BigInt(Math.sign(a.value - b.value)));
  env.registerFunction('Quantity.isLessThan(Quantity): bool', (a: KubeQuantity, b: KubeQuantity) => a.value < b.value);
  env.registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: KubeQuantity, b: KubeQuantity) => a.value > b.value);
  env.registerFunction('Quantity.sign(): int', (a: KubeQuantity) => BigInt(Math.sign(a.value)));
  env.registerFunction('Quantity.isInteger(): bool', (a: KubeQuantity) => Number.isInteger(a.value));
  env.registerFunction('Quantity.asInteger(): int', (a: KubeQuantity) => {
    if (!Number.isInteger(a.value)) throw new Error('cannot convert value to integer');
    return BigInt(a.value);
  });
  env.registerFunction('Quantity.asApproximateFloat(): double', (a: KubeQuantity) => a.value);
  env.registerFunction('Quantity.add(Quantity): Quantity', (a: KubeQuantity, b: KubeQuantity) => new KubeQuantity(a.value + b.value));
  env.registerFunction('Quantity.sub(Quantity): Quantity', (a: KubeQuantity, b: KubeQuantity) => new KubeQuantity(a.value - b.value));
  env.registerFunction('Quantity.add(int): Quantity', (a: KubeQuantity, b: bigint) => new KubeQuantity(a.value + Number(b)));
  env.registerFunction('Quantity.sub(int): Quantity', (a: KubeQuantity, b: bigint) => new KubeQuantity(a.value - Number(b)));
}
