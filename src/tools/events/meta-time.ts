/**
 * Wire formats of metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (RFC 3339 with exactly six
 * fractional digits), converted from and to milliseconds since the epoch as the {@link Clock} gives them.
 */

/** Formats `ms` as a metav1.Time: `2024-01-01T00:00:00Z` (sub-second precision is dropped, as upstream). */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Formats `ms` as a metav1.MicroTime: `2024-01-01T00:00:00.123000Z`. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp (Time or MicroTime) into ms since the epoch, keeping millisecond
 * precision. Returns undefined for anything that is not a valid timestamp: callers treat a malformed
 * time like an absent one rather than failing.
 */
export function parseTime(value: string | undefined | null): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = rfc3339.exec(value);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const ms = frac === undefined ? 0 : Number((frac + '00').slice(0, 3));
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  if (z === undefined) {
    const offset = (Number(oh) * 60 + Number(om)) * 60_000;
    t = sign === '+' ? t - offset : t + offset;
  }
  return Number.isFinite(t) ? t : undefined;
}
