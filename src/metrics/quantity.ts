/**
 * Reading resource quantities (apimachinery `pkg/api/resource/quantity.go`) as numbers, for the
 * usage figures of the metrics API: `250m` CPU, `128974848` or `123Mi` memory, `1e3`, `4k`.
 * Only reading: sums and display go through {@link milliValue} and {@link value}, which round up as
 * Quantity.MilliValue and Quantity.Value do.
 */
import { KubeloomError } from '../apimachinery/errors.ts';

/** A string is not a valid Quantity. */
export class QuantityParseError extends KubeloomError {
  constructor(text: string) {
    super('ERR_KUBE_QUANTITY', `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`);
  }
}

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const pattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/** The numeric value of a quantity (may be fractional: `250m` is 0.25). */
export function parseQuantity(text: string): number {
  const m = pattern.exec(text.trim());
  if (m === null) throw new QuantityParseError(text);
  const n = Number(m[1]);
  if (m[2] !== undefined) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (binary[suffix] ?? decimal[suffix]!);
}

/** The value in thousandths, rounded up (Quantity.MilliValue): CPU in millicores. */
export function milliValue(text: string): number {
  return Math.ceil(Math.round(parseQuantity(text) * 1e9) / 1e6);
}

/** The value rounded up to an integer (Quantity.Value): memory in bytes. */
export function value(text: string): number {
  return Math.ceil(Math.round(parseQuantity(text) * 1e6) / 1e6);
}
