import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isInternalError } from '../../apimachinery/errors.ts';
import { buildAttach, buildExec, decodeErrorChannel } from './remotecommand.ts';
import { NonZeroExitCodeError, StreamProtocolError } from './errors.ts';
import { ResizeQueue, decodeTerminalSize, encodeTerminalSize } from './resize.ts';
import { PassThrough } from 'node:stream';

test('buildExec sends the command and streams as sorted query parameters, commands in order', () => {
  const req = buildExec({ namespace: 'ns', pod: 'web', container: 'app', command: ['sh', '-c', 'echo hi'], stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() });
  assert.equal(req.verb, 'POST');
  assert.equal(req.path, '/api/v1/namespaces/ns/pods/web/exec');
  assert.deepEqual(req.query, [
    ['command', 'sh'],
    ['command', '-c'],
    ['command', 'echo hi'],
    ['container', 'app'],
    ['stderr', 'true'],
    ['stdin', 'true'],
    ['stdout', 'true'],
  ]);
});

test('a TTY session does not ask for stderr (the terminal merges it into stdout)', () => {
  const req = buildAttach({ namespace: 'ns', pod: 'web', stdout: new PassThrough(), stderr: new PassThrough(), tty: true });
  assert.equal(req.path, '/api/v1/namespaces/ns/pods/web/attach');
  assert.deepEqual(req.query, [
    ['stdout', 'true'],
    ['tty', 'true'],
  ]);
});

test('the error channel decodes as client-go decodes it', () => {
  const status = (s: object): Buffer => Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, ...s }));
  assert.equal(decodeErrorChannel(Buffer.alloc(0)), undefined);
  assert.equal(decodeErrorChannel(status({ status: 'Success' })), undefined);
  const exit = decodeErrorChannel(status({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '137' }] } }));
  assert.ok(exit instanceof NonZeroExitCodeError);
  assert.equal(exit.exitCode, 137);
  assert.ok(isInternalError(decodeErrorChannel(status({ status: 'Failure', reason: 'InternalError', code: 500, message: 'boom' }))));
  const table: Array<[Buffer, RegExp]> = [
    [Buffer.from('not json'), /could not be decoded/],
    [status({ status: 'Failure', reason: 'NonZeroExitCode' }), /details must be set/],
    [status({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [] } }), /no ExitCode cause given/],
    [status({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '-1' }] } }), /invalid exit code value "-1"/],
    [status({ status: 'Pending' }), /unknown error/],
  ];
  for (const [input, message] of table) {
    const err = decodeErrorChannel(input);
    assert.ok(err instanceof StreamProtocolError, String(err));
    assert.match(err.message, message);
  }
});

test('ResizeQueue hands out sizes in order, collapsing those not yet taken, and ends on close', async () => {
  const q = new ResizeQueue();
  const waiting = q.next();
  q.resize({ width: 80, height: 24 });
  assert.deepEqual(await waiting, { width: 80, height: 24 });
  q.resize({ width: 90, height: 30 });
  q.resize({ width: 100, height: 40 });
  assert.deepEqual(await q.next(), { width: 100, height: 40 });
  const pending = q.next();
  q.close();
  assert.equal(await pending, undefined);
  assert.equal(await q.next(), undefined);
});

test('terminal sizes travel with Go field names and are validated on receipt', () => {
  assert.equal(encodeTerminalSize({ width: 80, height: 24 }), '{"Width":80,"Height":24}');
  assert.deepEqual(decodeTerminalSize('{"Width":80,"Height":24}'), { width: 80, height: 24 });
  assert.equal(decodeTerminalSize('{"Width":-1,"Height":24}'), undefined);
  assert.equal(decodeTerminalSize('{"width":80}'), undefined);
  assert.equal(decodeTerminalSize('{'), undefined);
});
