/**
 * The string formats a CRD schema can check (k8s.io/apiextensions-apiserver/pkg/apiserver/validation/formats.go
 * keeps the kube-openapi strfmt registry's checkers for these names; any other format is ignored, as upstream
 * strips unsupported formats before validating).
 */
import { isIP } from 'node:net';

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidV = (v: string): RegExp => new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const hostname = /^[a-zA-Z0-9\p{S}\p{L}](?:[a-zA-Z0-9\p{S}\p{L}-]{0,61}[a-zA-Z0-9\p{S}\p{L}])?(?:\.[a-zA-Z0-9\p{S}\p{L}](?:[a-zA-Z0-9\p{S}\p{L}-]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)*\.?$/u;
const email = /^[^\s@]+@[^\s@]+$/;
const mac = /^(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^(?:[0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^(?:[0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const dateTime = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const date = /^\d{4}-\d{2}-\d{2}$/;
// Go's time.ParseDuration units plus strfmt's day and week suffixes.
const duration = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h|d|w)(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h|d|w))*$|^[-+]?0$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const hexColor = /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbColor = /^rgb\(\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(?:0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;

function validDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function validCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function validUri(s: string): boolean {
  try {
    return new URL(s).protocol !== '';
  } catch {
    return false;
  }
}

const checkers: Record<string, (s: string) => boolean> = {
  'date-time': (s) => dateTime.test(s) && validDate(s),
  datetime: (s) => dateTime.test(s) && validDate(s),
  date: (s) => date.test(s) && validDate(s),
  duration: (s) => duration.test(s),
  byte: (s) => base64.test(s),
  uuid: (s) => uuid.test(s),
  uuid3: (s) => uuidV('3').test(s),
  uuid4: (s) => uuidV('4').test(s),
  uuid5: (s) => uuidV('5').test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: validCidr,
  mac: (s) => mac.test(s),
  hostname: (s) => s.length <= 255 && hostname.test(s),
  email: (s) => email.test(s),
  uri: validUri,
  hexcolor: (s) => hexColor.test(s),
  rgbcolor: (s) => rgbColor.test(s),
  password: () => true,
};

/** Whether `value` has `format`; formats this server does not check (and upstream strips) accept anything. */
export function checkFormat(format: string, value: string): boolean {
  const check = checkers[format];
  return check === undefined ? true : check(value);
}

/** Whether a format is one the schema validation checks. */
export function isKnownFormat(format: string): boolean {
  return format in checkers;
}

// Nanoseconds per unit of Go's time.ParseDuration, plus strfmt's days and weeks.
const unitNanos: Record<string, bigint> = { ns: 1n, us: 1_000n, µs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n, d: 86_400_000_000_000n, w: 604_800_000_000_000n };

/** The nanoseconds of a `duration`-format string (strfmt.ParseDuration), or undefined when it is not one. */
export function parseDurationNanos(v: string): bigint | undefined {
  if (!duration.test(v)) return undefined;
  const sign = v.startsWith('-') ? -1n : 1n;
  let total = 0n;
  for (const m of v.replace(/^[-+]/, '').matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|ms|s|m|h|d|w)/g)) {
    const unit = unitNanos[m[3]!]!;
    const frac = m[2] ?? '';
    total += BigInt(m[1] === '' ? '0' : m[1]!) * unit + (frac === '' ? 0n : (BigInt(frac) * unit) / 10n ** BigInt(frac.length));
  }
  return sign * total;
}

/** The instant of a `date-time` or `date` string (millisecond precision), or undefined when it is not one. */
export function parseTimestamp(format: 'date' | 'date-time', v: string): Date | undefined {
  if (!checkFormat(format, v)) return undefined;
  const iso = format === 'date' ? `${v}T00:00:00Z` : v.replace(/^(\d{4}-\d{2}-\d{2})[Tt ]/, '$1T').replace(/z$/, 'Z');
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
