import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../../apimachinery/errors.ts';
import { dryRunOf, fieldManager, managerFromUserAgent } from './write-options.ts';

const withUserAgent = (ua: string | undefined): IncomingMessage => ({ headers: ua === undefined ? {} : { 'user-agent': ua } }) as IncomingMessage;

test('dryRunOf accepts only dryRun=All', () => {
  assert.equal(dryRunOf(new URLSearchParams('')), false);
  assert.equal(dryRunOf(new URLSearchParams('dryRun=All')), true);
  assert.equal(dryRunOf(new URLSearchParams('dryRun=All&dryRun=All')), true);
  for (const query of ['dryRun=', 'dryRun=all', 'dryRun=All&dryRun=Some']) {
    assert.throws(
      () => dryRunOf(new URLSearchParams(query)),
      (err: unknown) => err instanceof StatusError && err.status.code === 400 && /^Invalid dry run value: /.test(err.status.message ?? ''),
      query,
    );
  }
});

test('the field manager is fieldManager, else the User-Agent product, else "unknown"', () => {
  const cases: Array<[string | undefined, string]> = [
    ['kubectl/v1.32.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['  my-controller /1.0', 'my-controller'],
    ['no-slash', 'no-slash'],
    ['', 'unknown'],
    ['/v1', 'unknown'],
    [undefined, 'unknown'],
    [`${'x'.repeat(200)}/1`, 'x'.repeat(128)],
  ];
  for (const [ua, expected] of cases) assert.equal(managerFromUserAgent(ua), expected, String(ua));
  assert.equal(fieldManager(new URLSearchParams('fieldManager=mine'), withUserAgent('kubectl/1')), 'mine');
  assert.equal(fieldManager(new URLSearchParams('fieldManager='), withUserAgent('kubectl/1')), 'kubectl');
  assert.equal(fieldManager(new URLSearchParams(`fieldManager=${'m'.repeat(128)}`), withUserAgent(undefined)), 'm'.repeat(128));
  assert.throws(
    () => fieldManager(new URLSearchParams(`fieldManager=${'m'.repeat(129)}`), withUserAgent(undefined)),
    (err: unknown) => err instanceof StatusError && err.status.code === 422 && err.status.details?.causes?.[0]?.message === 'Too long: may not be longer than 128',
  );
});
