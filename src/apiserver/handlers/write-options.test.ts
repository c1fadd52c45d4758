import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../apimachinery/errors.ts';
import { createOptions, managerFromUserAgent } from './write-options.ts';

const withUserAgent = (ua: string | undefined): IncomingMessage => ({ headers: ua === undefined ? {} : { 'user-agent': ua } }) as IncomingMessage;

/** The 422 message createOptions throws for a query. */
function failure(query: string, kind: 'CreateOptions' | 'PatchOptions' = 'CreateOptions', apply = false): string {
  try {
    createOptions(new URLSearchParams(query), withUserAgent('kubectl/1'), kind, kind === 'PatchOptions' ? { apply } : undefined);
  } catch (err) {
    if (err instanceof StatusError) return `${err.status.code}: ${err.status.message}`;
    throw err;
  }
  return 'no failure';
}

test('dryRun accepts only All, and a bad value is a 422 naming the options kind', () => {
  assert.equal(createOptions(new URLSearchParams(''), withUserAgent(undefined), 'CreateOptions').dryRun, false);
  assert.equal(createOptions(new URLSearchParams('dryRun=All&dryRun=All'), withUserAgent(undefined), 'CreateOptions').dryRun, true);
  assert.equal(failure('dryRun=Partial'), '422: CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Partial"}: supported values: "All"');
  assert.equal(failure('dryRun=All&dryRun=Some', 'PatchOptions'), '422: PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All"');
});

test('fieldManager is validated: at most 128 bytes, printable characters only; apply needs one; force only with apply', () => {
  assert.equal(failure(`fieldManager=${'m'.repeat(129)}`), '422: CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes');
  assert.equal(failure('fieldManager=bad%0Amanager'), '422: CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "bad\\nmanager": invalid character U+000A (at position 3)');
  assert.equal(failure('', 'PatchOptions', true), '422: PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  assert.equal(failure('force=true', 'PatchOptions', false), '422: PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  assert.equal(failure('fieldValidation=Loose'), '422: CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
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
  assert.equal(createOptions(new URLSearchParams('fieldManager=mine'), withUserAgent('kubectl/1'), 'CreateOptions').manager, 'mine');
  assert.equal(createOptions(new URLSearchParams('fieldManager='), withUserAgent('kubectl/1'), 'CreateOptions').manager, 'kubectl');
  // The parameter codec reads any value but 0, f and false as true.
  assert.equal(createOptions(new URLSearchParams('fieldManager=a&force=maybe'), withUserAgent(undefined), 'PatchOptions', { apply: true }).force, true);
  assert.equal(createOptions(new URLSearchParams('fieldManager=a&force=false'), withUserAgent(undefined), 'PatchOptions', { apply: true }).force, false);
});
