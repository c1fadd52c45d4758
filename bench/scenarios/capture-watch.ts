/**
 * Scenario: a minimal watch reader. Opens a plain HTTP watch, counts newline bytes (no decoding),
 * keeps every chunk and finally writes them to a file: the exact bytes the informers receive for
 * the watch workload, replayed by the ceiling scenario. Its rate is the server's emission rate.
 */
import { get } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { scenario, sendMessage } from '../lib/child.ts';
import { startSpan, type Span } from '../lib/measure.ts';
import type { CaptureInput, CaptureResult } from '../lib/types.ts';

scenario<CaptureInput, CaptureResult>(async (input) => {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let lines = 0;
  let span: (() => Span) | undefined;
  const path = `/api/v1/namespaces/${input.namespace}/pods?watch=true&resourceVersion=${input.resourceVersion}`;
  const done = await new Promise<Span>((resolve, reject) => {
    const req = get(`${input.url}${path}`, (res) => {
      res.on('data', (chunk: Buffer) => {
        span ??= startSpan();
        chunks.push(chunk);
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
        if (lines >= input.events) {
          resolve(span());
          req.destroy();
        }
      });
      res.on('error', reject);
      void sendMessage({ type: 'watching' });
    });
    req.on('error', reject);
  });
  await writeFile(input.file, Buffer.concat(chunks, bytes));
  return { events: lines, bytes, ms: done.ms, cpuMs: done.cpuMs };
});
