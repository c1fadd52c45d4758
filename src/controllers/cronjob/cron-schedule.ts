/**
 * Cron schedules as CronJobs write them (github.com/robfig/cron/v3's standard parser, which
 * kube-controller-manager uses): five fields — minute, hour, day of month, month, day of week — each `*`,
 * `?`, a value, a range `a-b`, a step `*\/n` or `a-b/n`, or a comma list; month and weekday names; the
 * descriptors `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`; and a
 * `TZ=` or `CRON_TZ=` prefix (which the API server refuses in favour of spec.timeZone). As cron, a day
 * matches when day-of-month or day-of-week does if both are restricted.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';

/** A schedule that does not parse. */
export class CronScheduleError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CRON_SCHEDULE', message);
  }
}

/** A parsed schedule: the allowed values of each field. */
export interface CronSchedule {
  /** Minutes 0–59. */
  minutes: ReadonlySet<number>;
  /** Hours 0–23. */
  hours: ReadonlySet<number>;
  /** Days of the month 1–31. */
  daysOfMonth: ReadonlySet<number>;
  /** Months 1–12. */
  months: ReadonlySet<number>;
  /** Days of the week 0–6, Sunday 0. */
  daysOfWeek: ReadonlySet<number>;
  /** Whether day-of-month is `*` (then only day-of-week restricts days). */
  domStar: boolean;
  /** Whether day-of-week is `*` (then only day-of-month restricts days). */
  dowStar: boolean;
  /** The time zone of a `CRON_TZ=` prefix, if any. */
  timeZone?: string;
}

const monthNames = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function parseField(text: string, min: number, max: number, names?: string[]): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  const value = (s: string): number => {
    const i = names?.indexOf(s.toLowerCase()) ?? -1;
    if (i >= 0) return i + (names === monthNames ? 1 : 0);
    if (!/^\d+$/.test(s)) throw new CronScheduleError(`failed to parse int from ${s}`);
    return Number(s);
  };
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      [lo, hi] = [min, max];
      if (stepText === undefined) star = true;
    } else if (range.includes('-')) {
      const [a, b] = range.split('-') as [string, string];
      [lo, hi] = [value(a), value(b)];
    } else {
      lo = value(range);
      hi = stepText === undefined ? lo : max;
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new CronScheduleError(`failed to parse int from ${stepText ?? ''}`);
    if (lo < min || hi > max || lo > hi) throw new CronScheduleError(`end of range (${hi}) above maximum (${max}): ${part}`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

/** Parses a schedule; throws {@link CronScheduleError}. */
export function parseCronSchedule(spec: string): CronSchedule {
  let text = spec.trim();
  let timeZone: string | undefined;
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(text);
  if (tz !== null) {
    timeZone = tz[1];
    text = tz[2]!;
  }
  text = descriptors[text] ?? text;
  const fields = text.split(/\s+/);
  if (fields.length !== 5) throw new CronScheduleError(`expected exactly 5 fields, found ${fields.length}: ${spec}`);
  const dom = parseField(fields[2]!, 1, 31);
  const dow = parseField(fields[4]!, 0, 7, dayNames);
  // 7 is Sunday too.
  if (dow.values.delete(7)) dow.values.add(0);
  return {
    minutes: parseField(fields[0]!, 0, 59).values,
    hours: parseField(fields[1]!, 0, 23).values,
    daysOfMonth: dom.values,
    months: parseField(fields[3]!, 1, 12, monthNames).values,
    daysOfWeek: dow.values,
    domStar: dom.star,
    dowStar: dow.star,
    ...(timeZone === undefined ? {} : { timeZone }),
  };
}

/** The wall-clock fields of `ms` in `timeZone` (UTC when undefined). */
function fieldsAt(ms: number, timeZone: string | undefined): { minute: number; hour: number; day: number; month: number; weekday: number } {
  const d = new Date(ms);
  if (timeZone === undefined || timeZone === 'UTC' || timeZone === 'Etc/UTC') {
    return { minute: d.getUTCMinutes(), hour: d.getUTCHours(), day: d.getUTCDate(), month: d.getUTCMonth() + 1, weekday: d.getUTCDay() };
  }
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hour12: false, minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' }).formatToParts(d);
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  return { minute: Number(get('minute')), hour: Number(get('hour')) % 24, day: Number(get('day')), month: Number(get('month')), weekday: dayNames.indexOf(get('weekday').toLowerCase().slice(0, 3)) };
}

/** Whether the minute starting at `ms` is scheduled. */
export function cronMatches(s: CronSchedule, ms: number, timeZone?: string): boolean {
  const f = fieldsAt(ms, s.timeZone ?? timeZone);
  if (!s.minutes.has(f.minute) || !s.hours.has(f.hour) || !s.months.has(f.month)) return false;
  const dom = s.daysOfMonth.has(f.day);
  const dow = s.daysOfWeek.has(f.weekday);
  if (s.domStar || s.dowStar) return dom && dow;
  return dom || dow;
}

/** The first scheduled minute strictly after `afterMs`, searching at most `limitMs` ahead (default 5 years). */
export function nextScheduleTime(s: CronSchedule, afterMs: number, timeZone?: string, limitMs = 5 * 366 * 86_400_000): number | undefined {
  let t = Math.floor(afterMs / 60_000) * 60_000 + 60_000;
  const end = afterMs + limitMs;
  while (t <= end) {
    if (cronMatches(s, t, timeZone)) return t;
    t += 60_000;
  }
  return undefined;
}
