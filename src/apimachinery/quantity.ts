/**
 * Resource quantities (`500m`, `1Gi`, `2e3`) as apimachinery's `pkg/api/resource` parses and prints
 * them: exact decimal arithmetic, values below one nano rounded up, and the canonical form the API
 * server answers with (`0.5` → `500m`, `1536Mi` stays, `1024Ki` → `1Mi`, `1000` → `1k`).
 */

/** The three ways a quantity can be written, kept when it is printed again. */
export const QuantityFormat = {
  DecimalExponent: 'DecimalExponent',
  BinarySI: 'BinarySI',
  DecimalSI: 'DecimalSI',
} as const;
export type QuantityFormatValue = (typeof QuantityFormat)[keyof typeof QuantityFormat];

/** A parsed quantity: an exact value in nano units (10^-9) and the format it was written in. */
export interface Quantity {
  /** value × 10^9, rounded up (away from zero) at the nano scale. */
  readonly nanos: bigint;
  readonly format: QuantityFormatValue;
}

/** Thrown for text that is not a quantity; the message is apimachinery's ErrFormatWrong. */
export class QuantityFormatError extends Error {
  readonly code = 'ERR_QUANTITY_FORMAT';
  constructor() {
    super("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    this.name = 'QuantityFormatError';
  }
}

const decimalSuffixes: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const pattern = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/** Parses a quantity; throws {@link QuantityFormatError} as resource.ParseQuantity does. */
export function parseQuantity(text: string): Quantity {
  const m = pattern.exec(text.trim());
  if (m === null || text.trim() === '') throw new QuantityFormatError();
  const [, sign, whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') throw new QuantityFormatError();
  let format: QuantityFormatValue;
  let exp10 = 0;
  let exp2 = 0;
  if (suffix in decimalSuffixes) {
    format = QuantityFormat.DecimalSI;
    exp10 = decimalSuffixes[suffix]!;
  } else if (suffix in binarySuffixes) {
    format = QuantityFormat.BinarySI;
    exp2 = binarySuffixes[suffix]!;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    format = QuantityFormat.DecimalExponent;
    exp10 = Number(suffix.slice(1));
  } else throw new QuantityFormatError();
  // value = digits × 10^(exp10 - frac.length) × 2^exp2, kept exactly as a fraction num/den.
  let num = BigInt(`${whole}${frac}` || '0') * 2n ** BigInt(exp2) * 10n ** 9n;
  let den = 1n;
  const e = exp10 - frac.length;
  if (e >= 0) num *= 10n ** BigInt(e);
  else den = 10n ** BigInt(-e);
  // Round up to the nano scale, as the parser does for anything more precise.
  let nanos = num / den;
  if (num % den !== 0n) nanos += 1n;
  if (sign === '-') nanos = -nanos;
  return { nanos, format };
}

const decimalNames: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const binaryNames = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** The canonical text of a quantity, as Quantity.String() prints it. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const negative = q.nanos < 0n;
  const abs = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';
  let format = q.format;
  // Binary quantities below 1024, or not whole, print as decimal SI.
  if (format === QuantityFormat.BinarySI && (abs < 1024n * 10n ** 9n || abs % 10n ** 9n !== 0n)) format = QuantityFormat.DecimalSI;
  if (format === QuantityFormat.BinarySI) {
    let v = abs / 10n ** 9n;
    let i = 0;
    while (i < binaryNames.length - 1 && v % 1024n === 0n) {
      v /= 1024n;
      i++;
    }
    return `${sign}${v}${binaryNames[i]}`;
  }
  let v = abs;
  let exp = -9;
  while (exp < 18 && v % 1000n === 0n) {
    v /= 1000n;
    exp += 3;
  }
  if (format === QuantityFormat.DecimalExponent) return `${sign}${v}${exp === 0 ? '' : `e${exp}`}`;
  return `${sign}${v}${decimalNames[exp]}`;
}

/** Parses and prints a quantity: the form the API server stores. */
export function canonicalQuantity(text: string): string {
  return formatQuantity(parseQuantity(text));
}

/** Compares two quantities: negative, zero or positive. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}
