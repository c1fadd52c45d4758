/**
 * Scenario: the ceiling of a single JavaScript thread. Splits the captured watch bytes on newline
 * bytes and JSON.parses every line, chunk by chunk as they came off the socket would be (64 KiB),
 * joining only the lines that straddle two chunks. Best of `rounds`.
 */
import { readFile } from 'node:fs/promises';
import { scenario } from '../lib/child.ts';
import { startSpan, type Span } from '../lib/measure.ts';
import type { CeilingInput, CeilingResult } from '../lib/types.ts';

const chunkBytes = 64 * 1024;

function splitAndParse(buf: Buffer): number {
  let events = 0;
  let carry: Buffer | undefined;
  for (let off = 0; off < buf.length; off += chunkBytes) {
    const chunk = buf.subarray(off, Math.min(buf.length, off + chunkBytes));
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      let text: string;
      if (carry !== undefined) {
        text = Buffer.concat([carry, chunk.subarray(0, nl)]).toString('utf8');
        carry = undefined;
      } else text = chunk.toString('utf8', start, nl);
      const ev = JSON.parse(text) as { type: string };
      if (ev.type !== '') events++;
      start = nl + 1;
    }
    if (start < chunk.length) carry = carry === undefined ? Buffer.from(chunk.subarray(start)) : Buffer.concat([carry, chunk.subarray(start)]);
  }
  return events;
}

scenario<CeilingInput, CeilingResult>(async (input) => {
  const buf = await readFile(input.file);
  let best: (Span & { events: number }) | undefined;
  for (let r = 0; r < input.rounds; r++) {
    const end = startSpan();
    const events = splitAndParse(buf);
    const s = end();
    if (best === undefined || s.ms < best.ms) best = { ...s, events };
  }
  return { events: best!.events, bytes: buf.length, ms: best!.ms, cpuMs: best!.cpuMs };
});
