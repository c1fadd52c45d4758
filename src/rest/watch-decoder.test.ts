import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { WatchEvent } from '../apimachinery/watch.ts';
import { WatchDecodeError } from './errors.ts';
import { WatchStreamDecoder } from './watch-decoder.ts';
import { decodeWatchEvents } from './watch-event-iterator.ts';

interface Obj {
  metadata: { name: string };
}

const ev = (type: string, name: string): string => `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

async function* chunks(parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? Buffer.from(p) : p;
}

async function collect(parts: Array<string | Uint8Array>): Promise<{ events: Array<WatchEvent<Obj>>; error?: unknown }> {
  const events: Array<WatchEvent<Obj>> = [];
  try {
    for await (const e of decodeWatchEvents<Obj>(chunks(parts))) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const names = (events: Array<WatchEvent<Obj>>): string[] => events.map((e) => `${e.type}:${e.type === 'ERROR' ? e.object.reason : e.object.metadata.name}`);

test('events split at every possible byte boundary decode identically', async () => {
  const text = ev('ADDED', 'a') + ev('MODIFIED', 'ü-multibyte-✓') + ev('DELETED', 'c');
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const { events, error } = await collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
    assert.equal(error, undefined);
    assert.deepEqual(names(events), ['ADDED:a', 'MODIFIED:ü-multibyte-✓', 'DELETED:c'], `cut at ${cut}`);
  }
});

test('property: any chunking of a stream yields the same events in order', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), fc.string({ unit: 'grapheme' })), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), async (evs, cuts) => {
      const bytes = Buffer.from(evs.map(([t, n]) => ev(t, n)).join(''));
      const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
      const parts: Uint8Array[] = [];
      let prev = 0;
      for (const p of points) {
        parts.push(bytes.subarray(prev, p));
        prev = p;
      }
      parts.push(bytes.subarray(prev));
      const { events, error } = await collect(parts);
      assert.equal(error, undefined);
      assert.deepEqual(names(events), evs.map(([t, n]) => `${t}:${n}`));
    }),
  );
});

test('ERROR events are yielded with their Status; blank lines are skipped', async () => {
  const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old' };
  const { events, error } = await collect([ev('ADDED', 'a'), '\n\r\n', `${JSON.stringify({ type: 'ERROR', object: status })}\n`]);
  assert.equal(error, undefined);
  assert.deepEqual(events[1], { type: 'ERROR', object: status });
});

test('a malformed line is an error after the events before it, never a silent drop', async () => {
  const { events, error } = await collect([ev('ADDED', 'a') + '{"type":"ADDED","obj\n' + ev('ADDED', 'c')]);
  assert.deepEqual(names(events), ['ADDED:a']);
  assert.ok(error instanceof WatchDecodeError);
  assert.match((error as Error).message, /malformed watch event/);
});

test('lines that parse but are not events are errors', async () => {
  for (const line of ['[1,2]', '{"type":"ADDED"}', '{"type":"CREATED","object":{}}', '42', '{"type":"ADDED","object":[1]}']) {
    const { error } = await collect([`${line}\n`]);
    assert.ok(error instanceof WatchDecodeError, line);
  }
});

test('a stream cut in the middle of an event is an error; a final line without newline is accepted', async () => {
  const cut = await collect([ev('ADDED', 'a'), '{"type":"MODIFIED","object":{"metadata":']);
  assert.deepEqual(names(cut.events), ['ADDED:a']);
  assert.ok(cut.error instanceof WatchDecodeError);
  assert.match((cut.error as Error).message, /ended in the middle of an event/);
  const unterminated = await collect([ev('ADDED', 'a'), ev('ADDED', 'b').trimEnd()]);
  assert.deepEqual(names(unterminated.events), ['ADDED:a', 'ADDED:b']);
  assert.equal(unterminated.error, undefined);
});

test('the incremental decoder reports whether it holds part of an event', () => {
  const d = new WatchStreamDecoder<Obj>();
  const out: Array<WatchEvent<Obj>> = [];
  assert.equal(d.write(Buffer.from('{"type":"ADDED",'), out), undefined);
  assert.equal(d.midEvent, true);
  assert.equal(d.write(Buffer.from('"object":{"metadata":{"name":"x"}}}\n'), out), undefined);
  assert.equal(d.midEvent, false);
  assert.deepEqual(names(out), ['ADDED:x']);
  assert.equal(d.end(out), undefined);
});
