/**
 * Structural comparison of a golden (recorded from kube-apiserver) with a replay (the embedded server),
 * and the allow-list that excuses known, explained differences.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value at `path` that differs. `undefined` stands for "absent". */
export interface Difference {
  scenario: string;
  /** Slash-separated keys from the normalised run's root, e.g. `steps/2/body/spec/podReplacementPolicy`. */
  path: string;
  /** The real server's value. */
  real: unknown;
  /** The embedded server's value. */
  embedded: unknown;
}

/**
 * Aligns two lists of lines by their longest common subsequence: the lines only one side has are the
 * differences (`/i` for a line of the real side at index i, `/+j` for an embedded line at index j), so
 * one extra line does not shift every line after it.
 */
function diffLines(scenario: string, real: readonly string[], embedded: readonly string[], path: string): Difference[] {
  const n = real.length;
  const m = embedded.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = real[i] === embedded[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Difference[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && real[i] === embedded[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push({ scenario, path: `${path}/+${j}`, real: undefined, embedded: embedded[j] });
      j++;
    } else {
      out.push({ scenario, path: `${path}/${i}`, real: real[i], embedded: undefined });
      i++;
    }
  }
  return out;
}

const isLines = (v: unknown[]): v is string[] => v.every((x) => typeof x === 'string');

/** Every leaf where `real` and `embedded` differ (lists of lines are aligned, see diffLines). */
export function diff(scenario: string, real: unknown, embedded: unknown, path = ''): Difference[] {
  if (Array.isArray(real) && Array.isArray(embedded) && isLines(real) && isLines(embedded) && (real.length > 1 || embedded.length > 1)) return diffLines(scenario, real, embedded, path);
  if (Array.isArray(real) && Array.isArray(embedded)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(real.length, embedded.length); i++) out.push(...diff(scenario, real[i], embedded[i], `${path}/${i}`));
    return out;
  }
  if (isObj(real) && isObj(embedded)) {
    const out: Difference[] = [];
    const keys = [...new Set([...Object.keys(real), ...Object.keys(embedded)])].sort();
    for (const k of keys) out.push(...diff(scenario, real[k], embedded[k], `${path}/${k}`));
    return out;
  }
  if (JSON.stringify(real) === JSON.stringify(embedded)) return [];
  return [{ scenario, path: path === '' ? '/' : path, real, embedded }];
}

/** What a value must be for an allowance to apply: exactly this value, a pattern for strings, absent, or any test. */
export type Matcher = { absent: true } | { pattern: RegExp } | { test: (v: unknown) => boolean } | { equals: unknown };

function matches(m: Matcher | undefined, v: unknown): boolean {
  if (m === undefined) return true;
  if ('absent' in m) return v === undefined;
  if ('pattern' in m) return typeof v === 'string' && m.pattern.test(v);
  if ('test' in m) return m.test(v);
  return JSON.stringify(m.equals) === JSON.stringify(v);
}

/** One explained difference the replay tolerates. Every entry is listed in docs/apiserver-fidelity.md. */
export interface Allowance {
  /** Stable identifier, also the anchor in docs/apiserver-fidelity.md. */
  id: string;
  /** Which scenarios (by id). */
  scenarios: RegExp;
  /** Which paths of the normalised run. */
  path: RegExp;
  /** Constraint on the real server's value. */
  real?: Matcher;
  /** Constraint on the embedded server's value. */
  embedded?: Matcher;
  /** Why the servers differ here. */
  reason: string;
  /** The upstream code or change that explains it. */
  upstream: string;
}

/** The allowance that excuses a difference, if any. */
export function allowanceFor(d: Difference, list: readonly Allowance[]): Allowance | undefined {
  return list.find((a) => a.scenarios.test(d.scenario) && a.path.test(d.path) && matches(a.real, d.real) && matches(a.embedded, d.embedded));
}

/** A difference for a human: path, then both values. */
export function describe(d: Difference): string {
  const show = (v: unknown): string => (v === undefined ? '<absent>' : JSON.stringify(v));
  return `${d.path}\n    real:     ${show(d.real)}\n    embedded: ${show(d.embedded)}`;
}
