import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isConflict, isGone, isExpired, isInternalError, isNotFound, isServiceUnavailable, isTooManyRequests, isUnauthorized, isForbidden, StatusError } from '../apimachinery/errors.ts';
import { errorFromResponse, errorFromWatchStatus } from './errors.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

test('a Status body becomes a StatusError carrying exactly that Status', () => {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 };
  const err = errorFromResponse({ statusCode: 404, contentType: 'application/json', body: enc(JSON.stringify(status)) });
  assert.ok(err instanceof StatusError);
  assert.deepEqual(err.status, status);
  assert.ok(isNotFound(err));
  assert.equal(err.message, 'pods "x" not found');
});

test('non-Status bodies get a Status synthesised from the HTTP code, with the body text as message', () => {
  const cases: Array<[number, string, (e: unknown) => boolean]> = [
    [404, 'NotFound', isNotFound],
    [409, 'Conflict', isConflict],
    [500, 'InternalError', isInternalError],
    [502, 'InternalError', isInternalError],
    [503, 'ServiceUnavailable', isServiceUnavailable],
    [429, 'TooManyRequests', isTooManyRequests],
    [401, 'Unauthorized', isUnauthorized],
    [403, 'Forbidden', isForbidden],
    [410, 'Gone', isGone],
  ];
  for (const [code, reason, predicate] of cases) {
    const err = errorFromResponse({ statusCode: code, contentType: 'text/plain', body: enc(' upstream says no \n'), retryAfterSeconds: 3 });
    assert.equal(err.status.reason, reason, String(code));
    assert.equal(err.status.code, code);
    assert.equal(err.message, 'upstream says no');
    assert.ok(predicate(err), String(code));
    assert.equal(err.status.details?.retryAfterSeconds, code === 429 || code >= 500 ? 3 : undefined);
  }
});

test('binary or empty bodies fall back to the default message for the code', () => {
  assert.equal(errorFromResponse({ statusCode: 503, contentType: 'application/octet-stream', body: enc('\u0000\u0001') }).message, 'the server is currently unable to handle the request');
  const e = errorFromResponse({ statusCode: 418, body: new Uint8Array() });
  assert.equal(e.status.reason, '');
  assert.equal(e.status.code, 418);
  const success = errorFromResponse({ statusCode: 500, body: enc('{"kind":"Status","status":"Success"}') });
  assert.equal(success.status.reason, 'InternalError');
});

test('a watch ERROR Status with 410 is recognised as expired', () => {
  const err = errorFromWatchStatus({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' });
  assert.ok(isExpired(err));
  assert.ok(isGone(errorFromWatchStatus({ kind: 'Status', status: 'Failure', reason: 'Gone', code: 410 })));
  assert.equal(errorFromWatchStatus({ kind: 'Status', status: 'Failure', message: 'no code' }).statusCode, 500);
});
