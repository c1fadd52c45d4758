/**
 * Which credentials and identity headers a request carries, following client-go's transport round
 * trippers (transport/round_trippers.go, token_source.go) and the exec authenticator
 * (plugin/pkg/client/auth/exec/exec.go), and which configs are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../util/clock/clock.ts';
import { isUnauthorized } from '../apimachinery/errors.ts';
import { RestClient, defaultUserAgent } from './client.ts';
import type { CredentialProvider, Credentials, RestConfig } from './config.ts';
import { buildGet } from './request.ts';
import { ConfigError } from './transport.ts';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
}

async function serve(status: (req: http.IncomingMessage) => number = () => 200): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    const code = status(req);
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(code === 200 ? { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' } } : { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason: 'Unauthorized' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const get = buildGet({ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'p' });

/** A provider that records calls and hands out `token`. */
function recordingProvider(token: string): CredentialProvider & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    getCredentials: async () => {
      calls.push('get');
      return { token };
    },
    invalidate: () => {
      calls.push('invalidate');
    },
  };
}

test('a bearer token together with basic auth, or a positive qps without a burst, is refused', () => {
  const refused: Array<[Omit<RestConfig, 'host'>, RegExp]> = [
    [{ bearerToken: 't', username: 'u', password: 'p' }, /username\/password or bearer token may be set, but not both/],
    [{ bearerTokenFile: '/tmp/token', username: 'u' }, /but not both/],
    [{ qps: 20 }, /burst is required to be greater than 0/],
    [{ qps: 20, burst: 0 }, /burst is required/],
    [{ qps: 20, burst: -1 }, /burst is required/],
  ];
  for (const [config, message] of refused) {
    assert.throws(() => new RestClient({ host: 'http://127.0.0.1:1', ...config }), (e) => e instanceof ConfigError && message.test(e.message), JSON.stringify(config));
  }
  // Accepted: basic auth with a password but no username is no basic auth at all (HasBasicAuth checks
  // the username); defaults, an explicit burst, a custom limiter, or no limiting.
  for (const config of [{ bearerToken: 't', password: 'p' }, { qps: 0 }, { qps: 20, burst: 5 }, { qps: 20, rateLimiter: { wait: async () => undefined } }, { qps: -1 }, { burst: 50 }]) {
    void new RestClient({ host: 'http://127.0.0.1:1', ...config }).close();
  }
});

test("a request's own Authorization, User-Agent and Impersonate-User headers are kept; the credential provider is then not asked", async () => {
  const s = await serve();
  const provider = recordingProvider('from-plugin');
  const c = new RestClient({ host: s.url, qps: -1, credentialProvider: provider, userAgent: 'configured/1.0', impersonate: { userName: 'jane', groups: ['g'] } });
  try {
    await c.json({ ...get, headers: { ...get.headers, authorization: 'Bearer own', 'user-agent': 'own/2.0', 'impersonate-user': 'bob' } });
    await c.json(get);
    assert.deepEqual(
      s.seen.map((r) => [r.headers['authorization'], r.headers['user-agent'], r.headers['impersonate-user'], r.headers['impersonate-group']]),
      [
        ['Bearer own', 'own/2.0', 'bob', undefined],
        ['Bearer from-plugin', 'configured/1.0', 'jane', 'g'],
      ],
    );
    assert.deepEqual(provider.calls, ['get']);
  } finally {
    await c.close();
    await s.close();
  }
});

test('the credential provider is not used when the config has a token, token file, basic auth or client certificate', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloom-auth-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'file-token\n');
  const s = await serve();
  const cases: Array<[Omit<RestConfig, 'host' | 'credentialProvider'>, string | undefined]> = [
    [{ bearerToken: 'static' }, 'Bearer static'],
    [{ bearerTokenFile: tokenFile }, 'Bearer file-token'],
    [{ username: 'u', password: 'p' }, `Basic ${Buffer.from('u:p').toString('base64')}`],
    [{}, 'Bearer from-plugin'],
  ];
  try {
    for (const [config, authorization] of cases) {
      const provider = recordingProvider('from-plugin');
      const c = new RestClient({ host: s.url, qps: -1, ...config, credentialProvider: provider });
      await c.json(get);
      await c.close();
      assert.equal(s.seen.at(-1)!.headers['authorization'], authorization, JSON.stringify(config));
      assert.deepEqual(provider.calls, authorization === 'Bearer from-plugin' ? ['get'] : [], JSON.stringify(config));
    }
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after a 401 only the credentials that were refused are invalidated and refreshed; the 401 is returned, the next request carries the fresh ones', async () => {
  const s = await serve((req) => (req.headers['authorization'] === 'Bearer stale' ? 401 : 200));
  let current: Credentials = { token: 'stale' };
  const invalidated: Array<Credentials | undefined> = [];
  const provider: CredentialProvider = {
    getCredentials: async () => current,
    invalidate: (used) => {
      invalidated.push(used);
      if (used === undefined || used === current) current = { token: 'fresh' };
    },
  };
  const stale = current;
  const c = new RestClient({ host: s.url, qps: -1, credentialProvider: provider });
  try {
    await assert.rejects(c.json(get), (err: unknown) => isUnauthorized(err));
    assert.deepEqual(invalidated, [stale]);
    assert.equal(invalidated[0], stale, 'the very credentials object the request used');
    await c.json(get);
    assert.deepEqual(s.seen.map((r) => r.headers['authorization']), ['Bearer stale', 'Bearer fresh']);
  } finally {
    await c.close();
    await s.close();
  }
});

test('a token file is re-read once its token is 50 s old (a minute less 10 s leeway), not after a 401; a static token covers an unreadable file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloom-token-'));
  const file = join(dir, 'token');
  writeFileSync(file, 'one\n');
  const s = await serve((req) => (req.headers['authorization'] === 'Bearer one' && req.url!.includes('unauthorized') ? 401 : 200));
  const clock = new FakeClock(0);
  const c = new RestClient({ host: s.url, qps: -1, bearerTokenFile: file }, { clock });
  const unauthorized = buildGet({ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'unauthorized' });
  try {
    await c.json(get);
    writeFileSync(file, 'two');
    assert.ok(isUnauthorized(await c.json(unauthorized).catch((e: unknown) => e)));
    await clock.step(49_999);
    await c.json(get);
    await clock.step(1);
    await c.json(get);
    assert.deepEqual(s.seen.map((r) => r.headers['authorization']), ['Bearer one', 'Bearer one', 'Bearer one', 'Bearer two']);
  } finally {
    await c.close();
  }

  const missing = join(dir, 'missing');
  const fallback = new RestClient({ host: s.url, qps: -1, bearerTokenFile: missing, bearerToken: 'static' }, { clock });
  try {
    await fallback.json(get);
    assert.equal(s.seen.at(-1)!.headers['authorization'], 'Bearer static');
    writeFileSync(missing, 'rotated');
    await clock.step(50_000);
    await fallback.json(get);
    assert.equal(s.seen.at(-1)!.headers['authorization'], 'Bearer rotated');
  } finally {
    await fallback.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a configured userAgent the default one is sent', async () => {
  const s = await serve();
  const c = new RestClient({ host: s.url, qps: -1 });
  try {
    await c.json(get);
    assert.equal(s.seen[0]!.headers['user-agent'], defaultUserAgent);
  } finally {
    await c.close();
    await s.close();
  }
});
