/**
 * Prints the top self-time functions of a V8 .cpuprofile (as written by `node --cpu-prof`), with
 * file:line and the share of all samples, optionally restricted to a time window.
 *
 * Run: ./node_modules/.bin/node bench/lib/profile-top.ts <file.cpuprofile> [count] [--from-ms N] [--to-ms M]
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (name + location), largest first. */
export function topSelf(profile: Profile, fromMs = 0, toMs = Infinity): Array<{ name: string; where: string; share: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n] as const));
  const counts = new Map<string, number>();
  let total = 0;
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += (profile.timeDeltas[i] ?? 0) / 1000;
    if (t < fromMs || t > toMs) continue;
    const node = byId.get(profile.samples[i]!);
    if (node === undefined) continue;
    const f = node.callFrame;
    if (f.functionName === '(idle)') continue;
    const where = f.url === '' ? '' : `${path.relative(process.cwd(), f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}`;
    const key = `${f.functionName === '' ? '(anonymous)' : f.functionName}\t${where}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    total++;
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, c]) => {
      const [name, where] = k.split('\t') as [string, string];
      return { name, where, share: c / total };
    });
}

if (import.meta.main) {
  const [file, count] = process.argv.slice(2);
  const fromIdx = process.argv.indexOf('--from-ms');
  const from = fromIdx >= 0 ? Number(process.argv[fromIdx + 1]) : 0;
  const toIdx = process.argv.indexOf('--to-ms');
  const to = toIdx >= 0 ? Number(process.argv[toIdx + 1]) : Infinity;
  if (file === undefined) throw new Error('usage: profile-top.ts <file.cpuprofile> [count] [--from-ms N] [--to-ms M]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  for (const row of topSelf(profile, from, to).slice(0, Number(count ?? 25))) {
    console.log(`${(row.share * 100).toFixed(1).padStart(5)}%  ${row.name.padEnd(40)} ${row.where}`);
  }
}
