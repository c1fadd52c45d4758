import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { after, before, test } from 'node:test';
import { FakeClock } from '../util/clock/clock.ts';
import { DefaultTokenFileRefreshMs, KubeConfigReadError, TokenFileCredentialProvider } from './index.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-tokenfile-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('re-reads the file once the refresh period has passed, or after invalidate()', async () => {
  const file = path.join(dir, 'token');
  await writeFile(file, 'v1\n');
  const clock = new FakeClock();
  const p = new TokenFileCredentialProvider({ path: file, clock, refreshMs: 60_000 });
  const seen: (string | undefined)[] = [];
  seen.push((await p.getCredentials()).token);
  await writeFile(file, 'v2');
  await clock.step(59_999);
  seen.push((await p.getCredentials()).token);
  await clock.step(1);
  seen.push((await p.getCredentials()).token);
  await writeFile(file, 'v3');
  p.invalidate();
  seen.push((await p.getCredentials()).token);
  assert.deepEqual(seen, ['v1', 'v1', 'v2', 'v3']);
});

test('a failed or empty re-read keeps the previous token; a failed first read is an error', async () => {
  const file = path.join(dir, 'rotating');
  await writeFile(file, 'old');
  const clock = new FakeClock();
  const p = new TokenFileCredentialProvider({ path: file, clock });
  assert.equal((await p.getCredentials()).token, 'old');
  await writeFile(file, '');
  p.invalidate();
  assert.equal((await p.getCredentials()).token, 'old');
  await rm(file);
  p.invalidate();
  assert.equal((await p.getCredentials()).token, 'old');

  const missing = new TokenFileCredentialProvider({ path: path.join(dir, 'missing'), clock });
  await assert.rejects(missing.getCredentials(), KubeConfigReadError);
});

test('credentials print without the token', async () => {
  const file = path.join(dir, 'secret');
  await writeFile(file, 'TOP-SECRET');
  const c = await new TokenFileCredentialProvider({ path: file, clock: new FakeClock() }).getCredentials();
  assert.equal(c.token, 'TOP-SECRET');
  assert.doesNotMatch(inspect(c) + JSON.stringify(c), /TOP-SECRET/);
});

test('by default the file is re-read once the token is 50 s old (a minute less 10 s leeway)', async () => {
  const file = path.join(dir, 'default-period');
  await writeFile(file, 'one');
  const clock = new FakeClock(0);
  const p = new TokenFileCredentialProvider({ path: file, clock });
  assert.equal((await p.getCredentials()).token, 'one');
  await writeFile(file, 'two');
  await clock.step(DefaultTokenFileRefreshMs - 1);
  assert.equal((await p.getCredentials()).token, 'one');
  await clock.step(1);
  assert.equal((await p.getCredentials()).token, 'two');
  assert.equal(DefaultTokenFileRefreshMs, 50_000);
});
