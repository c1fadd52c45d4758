/**
 * A small cron schedule parser for the example (the tutorial uses robfig/cron): five fields — minute,
 * hour, day of month, month, day of week — each `*`, a number, a range `a-b`, a list `a,b` and a step
 * `/n`, plus the `@hourly`, `@daily`, `@weekly`, `@monthly` and `@yearly` shorthands. Times are UTC.
 */

const shorthands: Record<string, string> = { '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *' };

/** A parsed schedule. */
export interface Schedule {
  /** The first activation strictly after `t` (ms since the epoch). */
  next(t: number): number;
}

function field(text: string, min: number, max: number): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let lo = min;
    let hi = max;
    if (range !== '*') {
      const [a, b] = range!.split('-');
      lo = Number(a);
      hi = b === undefined ? (stepText === undefined ? lo : max) : Number(b);
    }
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || !Number.isInteger(step) || step < 1 || lo < min || hi > max || lo > hi) throw new Error(`bad cron field ${JSON.stringify(text)}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** Parses a schedule; throws on a malformed one. */
export function parseSchedule(spec: string): Schedule {
  const fields = (shorthands[spec.trim()] ?? spec).trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected 5 cron fields, got ${fields.length} in ${JSON.stringify(spec)}`);
  const [min, hour, dom, mon, dow] = [field(fields[0]!, 0, 59), field(fields[1]!, 0, 23), field(fields[2]!, 1, 31), field(fields[3]!, 1, 12), field(fields[4]!, 0, 6)];
  const domAny = fields[2] === '*';
  const dowAny = fields[4] === '*';
  return {
    next(t: number): number {
      const d = new Date(Math.floor(t / 60_000) * 60_000 + 60_000);
      // At most four years of minutes; a valid schedule matches long before.
      for (let i = 0; i < 4 * 366 * 24 * 60; i++) {
        const dayOk = domAny && dowAny ? true : domAny ? dow.has(d.getUTCDay()) : dowAny ? dom.has(d.getUTCDate()) : dom.has(d.getUTCDate()) || dow.has(d.getUTCDay());
        if (mon.has(d.getUTCMonth() + 1) && dayOk && hour.has(d.getUTCHours()) && min.has(d.getUTCMinutes())) return d.getTime();
        d.setTime(d.getTime() + 60_000);
      }
      throw new Error(`schedule ${JSON.stringify(spec)} never activates`);
    },
  };
}
