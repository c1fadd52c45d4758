import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CronScheduleError, nextScheduleTime, parseCronSchedule } from './cron-schedule.ts';

const at = (iso: string): number => Date.parse(iso);
const next = (spec: string, from: string, tz?: string): string | undefined => {
  const t = nextScheduleTime(parseCronSchedule(spec), at(from), tz);
  return t === undefined ? undefined : new Date(t).toISOString();
};

test('cron schedules: fields, ranges, steps, names, descriptors, the day-of-month/day-of-week rule, time zones', () => {
  assert.equal(next('*/15 * * * *', '2026-01-01T10:07:30Z'), '2026-01-01T10:15:00.000Z');
  assert.equal(next('0 9-17/4 * * mon-fri', '2026-01-02T13:00:00Z'), '2026-01-02T17:00:00.000Z'); // a Friday
  assert.equal(next('0 9-17/4 * * mon-fri', '2026-01-02T17:00:00Z'), '2026-01-05T09:00:00.000Z'); // then Monday
  assert.equal(next('@daily', '2026-01-01T00:00:00Z'), '2026-01-02T00:00:00.000Z');
  assert.equal(next('0 0 1 jan *', '2026-03-01T00:00:00Z'), '2027-01-01T00:00:00.000Z');
  // Both restricted: either day matches (the 13th, or a Friday).
  assert.equal(next('0 0 13 * 5', '2026-02-01T00:00:00Z'), '2026-02-06T00:00:00.000Z');
  assert.equal(next('0 0 * * 7', '2026-01-01T00:00:00Z'), '2026-01-04T00:00:00.000Z', '7 is Sunday');
  assert.equal(next('0 9 * * *', '2026-01-01T00:00:00Z', 'Europe/Paris'), '2026-01-01T08:00:00.000Z');
  assert.equal(next('CRON_TZ=America/New_York 0 9 * * *', '2026-01-01T00:00:00Z'), '2026-01-01T14:00:00.000Z');
  for (const bad of ['* * * *', '61 * * * *', '*/0 * * * *', 'x * * * *']) assert.throws(() => parseCronSchedule(bad), CronScheduleError, bad);
});
