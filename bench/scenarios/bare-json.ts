/**
 * Scenario: the heap of bare JSON.parse'd Pods, the yardstick for heap per cached Pod. Fetches the
 * same LIST the informers sync, parses it, keeps only the items array and measures the heap after GC
 * against the heap before.
 */
import { get } from 'node:http';
import { scenario } from '../lib/child.ts';
import { heapAfterGc } from '../lib/measure.ts';
import type { BareJsonInput, BareJsonResult } from '../lib/types.ts';

async function fetchText(url: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    }).on('error', reject);
  });
}

let kept: unknown[] = [];

scenario<BareJsonInput, BareJsonResult>(async (input) => {
  const base = await heapAfterGc();
  let text: string | undefined = await fetchText(`${input.url}/api/v1/namespaces/${input.namespace}/pods`);
  const bytes = Buffer.byteLength(text);
  kept = (JSON.parse(text) as { items: unknown[] }).items;
  text = undefined;
  const heapBytes = (await heapAfterGc()) - base;
  return { pods: kept.length, heapBytes, bytes };
});
