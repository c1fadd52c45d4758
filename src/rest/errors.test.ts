import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAlreadyExists, isConflict, isGone, isExpired, isInternalError, isNotFound, isServiceUnavailable, isTooManyRequests, isUnauthorized, isForbidden, StatusError } from '../apimachinery/errors.ts';
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

test('non-Status bodies get a Status synthesised as errors.NewGenericServerResponse does', () => {
  // [code, verb, reason, message] for a text/plain body " upstream says no " on `get pods web`.
  const cases: Array<[number, string, string, string, (e: unknown) => boolean]> = [
    [404, 'GET', 'NotFound', 'the server could not find the requested resource (get pods web)', isNotFound],
    [409, 'PUT', 'Conflict', 'the server reported a conflict (put pods web)', isConflict],
    [409, 'POST', 'AlreadyExists', 'the server reported a conflict (post pods web)', isAlreadyExists],
    [500, 'GET', 'InternalError', 'an error on the server ("upstream says no") has prevented the request from succeeding (get pods web)', isInternalError],
    [502, 'GET', 'InternalError', 'an error on the server ("upstream says no") has prevented the request from succeeding (get pods web)', isInternalError],
    [503, 'GET', 'ServiceUnavailable', 'the server is currently unable to handle the request (get pods web)', isServiceUnavailable],
    [429, 'GET', 'TooManyRequests', 'the server has received too many requests and has asked us to try again later (get pods web)', isTooManyRequests],
    [401, 'GET', 'Unauthorized', 'the server has asked for the client to provide credentials (get pods web)', isUnauthorized],
    [403, 'GET', 'Forbidden', 'upstream says no (get pods web)', isForbidden],
    [410, 'GET', '', 'the server responded with the status code 410 but did not return more information (get pods web)', isGone],
  ];
  for (const [code, verb, reason, message, predicate] of cases) {
    const err = errorFromResponse({ statusCode: code, verb, contentType: 'text/plain', body: enc(' upstream says no \n'), retryAfterSeconds: 3, group: '', resource: 'pods', name: 'web' });
    assert.equal(err.status.reason, reason, String(code));
    assert.equal(err.status.code, code);
    assert.equal(err.message, message);
    assert.ok(predicate(err), String(code));
    assert.deepEqual(err.status.details, { kind: 'pods', name: 'web', retryAfterSeconds: 3, causes: [{ reason: 'UnexpectedServerResponse', message: 'upstream says no' }] });
  }
  const grouped = errorFromResponse({ statusCode: 409, verb: 'POST', body: enc('taken'), group: 'apps', resource: 'deployments' });
  assert.equal(grouped.message, 'the server reported a conflict (post deployments.apps)');
  assert.deepEqual(grouped.status.details, { group: 'apps', kind: 'deployments', causes: [{ reason: 'UnexpectedServerResponse', message: 'taken' }] });
  assert.equal(errorFromResponse({ statusCode: 404, verb: 'GET', body: enc('') }).message, 'the server could not find the requested resource');
});

test('only text/* (or untyped) bodies are quoted; JSON that is not a failed Status counts as unknown', () => {
  const binary = errorFromResponse({ statusCode: 503, contentType: 'application/octet-stream', body: enc('\u0000\u0001') });
  assert.equal(binary.message, 'the server is currently unable to handle the request');
  assert.equal(binary.status.details?.causes?.[0]?.message, 'unknown');
  const json = errorFromResponse({ statusCode: 500, contentType: 'application/json', body: enc('{"error":"boom"}') });
  assert.equal(json.message, 'an error on the server ("unknown") has prevented the request from succeeding');
  const e = errorFromResponse({ statusCode: 418, body: new Uint8Array() });
  assert.equal(e.status.reason, '');
  assert.equal(e.status.code, 418);
  // A Status whose status is not Failure is not taken as the server's error (rest.Result.Error).
  for (const status of ['Success', '']) {
    const notFailure = errorFromResponse({ statusCode: 500, body: enc(`{"kind":"Status","status":"${status}","reason":"NotFound"}`) });
    assert.equal(notFailure.status.reason, 'InternalError', status);
  }
  const large = errorFromResponse({ statusCode: 400, contentType: 'text/html', body: enc('x'.repeat(5000)) });
  assert.equal(large.status.details?.causes?.[0]?.message, 'x'.repeat(2048));
});

test('a watch ERROR Status with 410 is recognised as expired', () => {
  const err = errorFromWatchStatus({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' });
  assert.ok(isExpired(err));
  assert.ok(isGone(errorFromWatchStatus({ kind: 'Status', status: 'Failure', reason: 'Gone', code: 410 })));
  assert.equal(errorFromWatchStatus({ kind: 'Status', status: 'Failure', message: 'no code' }).statusCode, 500);
});
