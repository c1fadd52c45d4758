import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isAlreadyExists, isBadRequest, isConflict, isExpired, isForbidden, isGone, isInternalError, isInvalid,
  isMethodNotSupported, isNotFound, isResourceExpired, isServerTimeout, isServiceUnavailable, isTimeout,
  isTooManyRequests, isUnauthorized, newNotFound, newStatus, reasonForError, StatusError, suggestsClientDelay,
} from './errors.ts';

const err = (code: number, reason: string, retryAfterSeconds?: number) =>
  new StatusError(newStatus(code, reason, 'm', retryAfterSeconds === undefined ? undefined : { retryAfterSeconds }));

test('predicates match by reason, or by code only when the reason is unknown', () => {
  const table: Array<[string, (e: unknown) => boolean, StatusError, boolean]> = [
    ['notFound by reason', isNotFound, err(500, 'NotFound'), true],
    ['notFound by code, unknown reason', isNotFound, err(404, 'SomethingNew'), true],
    ['notFound: known other reason wins over code', isNotFound, err(404, 'Conflict'), false],
    ['alreadyExists needs the reason', isAlreadyExists, err(409, ''), false],
    ['alreadyExists by reason', isAlreadyExists, err(409, 'AlreadyExists'), true],
    ['conflict by code', isConflict, err(409, ''), true],
    ['conflict: AlreadyExists is not a conflict', isConflict, err(409, 'AlreadyExists'), false],
    ['invalid by code', isInvalid, err(422, ''), true],
    ['badRequest', isBadRequest, err(400, 'BadRequest'), true],
    ['gone by code', isGone, err(410, ''), true],
    ['gone: Expired reason is not Gone', isGone, err(410, 'Expired'), false],
    ['resourceExpired by reason only', isResourceExpired, err(410, 'Expired'), true],
    ['resourceExpired not by code', isResourceExpired, err(410, ''), false],
    ['expired covers gone', isExpired, err(410, 'Gone'), true],
    ['expired covers Expired', isExpired, err(410, 'Expired'), true],
    ['tooManyRequests by code whatever the reason', isTooManyRequests, err(429, 'Forbidden'), true],
    ['forbidden', isForbidden, err(403, ''), true],
    ['unauthorized', isUnauthorized, err(401, ''), true],
    ['methodNotSupported', isMethodNotSupported, err(405, ''), true],
    ['serverTimeout by reason only', isServerTimeout, err(504, ''), false],
    ['serverTimeout', isServerTimeout, err(500, 'ServerTimeout'), true],
    ['timeout by code', isTimeout, err(504, ''), true],
    ['internal', isInternalError, err(500, ''), true],
    ['unavailable', isServiceUnavailable, err(503, ''), true],
  ];
  for (const [name, pred, e, want] of table) assert.equal(pred(e), want, name);
});

test('predicates walk the cause chain and ignore non-Status errors', () => {
  const wrapped = new Error('outer', { cause: new Error('middle', { cause: newNotFound('apps', 'deployments', 'web') }) });
  assert.equal(isNotFound(wrapped), true);
  assert.equal(reasonForError(wrapped), 'NotFound');
  assert.equal(isNotFound(new Error('plain')), false);
  assert.equal(isNotFound(undefined), false);
  assert.equal(isNotFound('404'), false);
});

test('newNotFound builds the message and details kube-apiserver sends', () => {
  const e = newNotFound('apps', 'deployments', 'web');
  assert.equal(e.message, 'deployments.apps "web" not found');
  assert.equal(e.statusCode, 404);
  assert.deepEqual(e.details, { group: 'apps', kind: 'deployments', name: 'web' });
  assert.equal(e.code, 'ERR_KUBE_STATUS');
});

test('suggestsClientDelay follows client-go', () => {
  assert.equal(suggestsClientDelay(err(500, 'ServerTimeout', 0)), 0);
  assert.equal(suggestsClientDelay(err(429, 'TooManyRequests', 3)), 3);
  assert.equal(suggestsClientDelay(err(429, 'TooManyRequests', 0)), undefined);
  assert.equal(suggestsClientDelay(err(500, 'InternalError')), undefined);
});
