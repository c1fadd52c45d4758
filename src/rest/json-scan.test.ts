import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanComposite, type CompositeScanState } from './json-scan.ts';

/**
 * Scans the composite value at the start of `text`, fed as the chunks cut at `cuts`, as the LIST
 * decoder does: state carried over, and the next chunk entered `state.skip` bytes in. Returns the
 * offset in `text` just after the value, or -1.
 */
function scanInChunks(text: Buffer, cuts: number[]): number {
  const bounds = [...new Set([0, ...cuts.filter((c) => c > 0 && c < text.length), text.length])].sort((a, b) => a - b);
  const state: CompositeScanState = { depth: 1, inString: false, skip: 0 };
  let from = 1;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const start = bounds[k]!;
    const chunk = text.subarray(start, bounds[k + 1]);
    let i = Math.max(0, from - start);
    if (k > 0 && state.skip > 0) {
      i += state.skip;
      state.skip = 0;
      if (i > chunk.length) {
        state.skip = i - chunk.length;
        continue;
      }
    }
    if (i > chunk.length) continue;
    const end = scanComposite(chunk, i, chunk.length, state);
    if (end >= 0) return start + end;
    from = bounds[k + 1]!;
  }
  return -1;
}

test('scanComposite finds the end of an object or array wherever the chunks are cut: inside strings, after a backslash, between brackets', () => {
  const value = fc.jsonValue().map((v) => ({ v, s: 'q"\\u00e9\\\\"}]{[', a: [v, '\\', '"'] }));
  fc.assert(
    fc.property(value, fc.array(fc.nat(), { maxLength: 6 }), fc.string(), (v, cuts, trailing) => {
      const json = JSON.stringify(v);
      const text = Buffer.from(json + ',' + JSON.stringify(trailing));
      const at = cuts.map((c) => c % (text.length + 1));
      assert.equal(scanInChunks(text, at), Buffer.byteLength(json));
    }),
    { numRuns: 400 },
  );
});

test('scanComposite cut right after a backslash inside a string resumes past the escaped quote', () => {
  const text = Buffer.from('{"a":"x\\"}","b":[1]}');
  const backslash = text.indexOf(0x5c);
  for (let cut = 1; cut < text.length; cut++) assert.equal(scanInChunks(text, [cut]), text.length, `cut at ${cut}`);
  assert.equal(scanInChunks(text, [backslash + 1, backslash + 2]), text.length);
});

test('scanComposite reports -1 with the depth and string state when the value does not end in the chunk', () => {
  const state: CompositeScanState = { depth: 1, inString: false, skip: 0 };
  const chunk = Buffer.from('"k":[{"s":"ab\\');
  assert.equal(scanComposite(chunk, 0, chunk.length, state), -1);
  assert.deepEqual(state, { depth: 3, inString: true, skip: 1 });
  const state2: CompositeScanState = { depth: 1, inString: false, skip: 0 };
  const chunk2 = Buffer.from('"k":[1,2');
  assert.equal(scanComposite(chunk2, 0, chunk2.length, state2), -1);
  assert.deepEqual(state2, { depth: 2, inString: false, skip: 0 });
});
