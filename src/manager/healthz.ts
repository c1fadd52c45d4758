/**
 * Health and readiness endpoints (controller-runtime pkg/healthz/healthz.go): named checks, each
 * reachable alone at `/healthz/<name>`, all together at `/healthz`; any failing check answers 500 with
 * the list of checks (`[+]name ok`, `[-]name failed: reason withheld`) and `healthz check failed`;
 * success answers `ok`, or the list and `healthz check passed` with `?verbose`. `?exclude=name` skips a check;
 * excluding one that does not exist adds `warn: some health checks cannot be excluded: no matches for "name"`.
 * Without checks the list is `[+]ping ok`. The words are controller-runtime's on every path, `/readyz`
 * included ("healthz check passed"; kube-apiserver's own /readyz says "readyz check passed", but the
 * Manager follows controller-runtime, whose one handler serves both).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A health check (healthz.Checker): resolves (or returns) nothing when healthy, throws (or returns an Error) when not. */
export type Checker = (req: IncomingMessage) => void | Error | undefined | Promise<void | Error | undefined>;

/** Always healthy (healthz.Ping). */
export const ping: Checker = () => undefined;

async function run(check: Checker, req: IncomingMessage): Promise<Error | undefined> {
  try {
    const out = await check(req);
    return out instanceof Error ? out : undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * Serves `checks` under `prefix` (e.g. '/healthz'); returns false when the path is not under it.
 * Checks are evaluated in name order, as upstream sorts them.
 */
export async function serveChecks(prefix: string, checks: ReadonlyMap<string, Checker>, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return false;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('x-content-type-options', 'nosniff');
  const sub = url.pathname.slice(prefix.length + 1);
  if (sub !== '') {
    const check = checks.get(sub) ?? (checks.size === 0 && sub === 'ping' ? ping : undefined);
    if (check === undefined) {
      res.statusCode = 404;
      res.end('404 page not found\n');
      return true;
    }
    const err = await run(check, req);
    res.statusCode = err === undefined ? 200 : 500;
    res.end(err === undefined ? 'ok' : `internal server error: ${err.message}\n`);
    return true;
  }
  const excluded = new Set(url.searchParams.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const name of [...checks.keys()].sort()) {
    if (excluded.delete(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const err = await run(checks.get(name)!, req);
    if (err === undefined) lines.push(`[+]${name} ok`);
    else {
      failed = true;
      lines.push(`[-]${name} failed: reason withheld`);
    }
  }
  if (checks.size === 0) lines.push('[+]ping ok');
  if (excluded.size > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((n) => JSON.stringify(n)).join(',')}`);
  if (failed) {
    res.statusCode = 500;
    res.end(`${lines.join('\n')}\nhealthz check failed\n`);
  } else if (url.searchParams.has('verbose')) {
    res.statusCode = 200;
    res.end(`${lines.join('\n')}\nhealthz check passed\n`);
  } else {
    res.statusCode = 200;
    res.end('ok');
  }
  return true;
}
