import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../rest/client.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { withAuthenticationAndAuthorization } from './metrics-auth.ts';

// An API server that knows two tokens and allows only "reader"; it counts the reviews it answers.
async function reviewServer(): Promise<{ url: string; reviews: string[]; close(): Promise<void> }> {
  const reviews: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const review = JSON.parse(body) as { kind: string; spec: { token?: string; user?: string; nonResourceAttributes?: { path: string; verb: string } } };
      let status: unknown;
      if (review.kind === 'TokenReview') {
        reviews.push(`token ${review.spec.token}`);
        const user = { 'reader-token': 'reader', 'other-token': 'other' }[review.spec.token ?? ''];
        status = user === undefined ? { authenticated: false, error: 'invalid bearer token' } : { authenticated: true, user: { username: user, groups: ['system:authenticated'] } };
      } else {
        const a = review.spec.nonResourceAttributes!;
        reviews.push(`access ${review.spec.user} ${a.verb} ${a.path}`);
        status = { allowed: review.spec.user === 'reader' && a.path === '/metrics' && a.verb === 'get' };
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...review, status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reviews, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// Runs the filter on a request with `token`; the status it answered, or 'pass'.
async function ask(filter: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>, token: string | undefined, path = '/metrics'): Promise<string | number> {
  let status = 0;
  let text = '';
  const req = { method: 'GET', url: path, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } } as unknown as IncomingMessage;
  const res = { writeHead: (s: number) => void (status = s), end: (t: string) => void (text = t) } as unknown as ServerResponse;
  const passed = await filter(req, res);
  return passed ? 'pass' : `${status} ${text.trimEnd()}`;
}

test('withAuthenticationAndAuthorization: 401 without or with a rejected token, 403 when not allowed, reviews cached 1 min / 5 min allowed / 30 s denied', async (t) => {
  const api = await reviewServer();
  const rest = new RestClient({ host: api.url, qps: -1 });
  t.after(async () => {
    await rest.close();
    await api.close();
  });
  const clock = new FakeClock();
  const filter = withAuthenticationAndAuthorization(rest, { clock });
  assert.equal(await ask(filter, undefined), '401 Unauthorized');
  assert.deepEqual(api.reviews, [], 'no token, no review');
  assert.equal(await ask(filter, 'bad-token'), '401 Unauthorized');
  assert.equal(await ask(filter, 'other-token'), '403 Authorization denied for user other');
  assert.equal(await ask(filter, 'reader-token', '/debug'), '403 Authorization denied for user reader');
  assert.equal(await ask(filter, 'reader-token'), 'pass');
  assert.deepEqual(api.reviews, ['token bad-token', 'token other-token', 'access other get /metrics', 'token reader-token', 'access reader get /debug', 'access reader get /metrics']);

  // Within every TTL: no review at all.
  api.reviews.length = 0;
  await clock.step(29_999);
  assert.equal(await ask(filter, 'other-token'), '403 Authorization denied for user other');
  assert.equal(await ask(filter, 'reader-token'), 'pass');
  assert.deepEqual(api.reviews, []);
  // 30 s: the denial is asked again; the token (1 min) and the allowance (5 min) are not.
  await clock.step(1);
  assert.equal(await ask(filter, 'other-token'), '403 Authorization denied for user other');
  assert.equal(await ask(filter, 'reader-token'), 'pass');
  assert.deepEqual(api.reviews, ['access other get /metrics']);
  // 1 min: the tokens are reviewed again; the allowance still holds.
  api.reviews.length = 0;
  await clock.step(30_000);
  assert.equal(await ask(filter, 'reader-token'), 'pass');
  assert.deepEqual(api.reviews, ['token reader-token']);
  // 5 min: the allowance is asked again.
  api.reviews.length = 0;
  await clock.step(240_000);
  assert.equal(await ask(filter, 'reader-token'), 'pass');
  assert.deepEqual(api.reviews, ['token reader-token', 'access reader get /metrics']);
});
