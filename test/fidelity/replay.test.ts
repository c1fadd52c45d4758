/**
 * The differential test: replays the fidelity corpus against the embedded API server and compares the
 * normalised answers with the golden files recorded from a real kube-apiserver. Any difference that the
 * allow-list does not explain fails the scenario; an allowance that explains nothing fails too, so the
 * list only holds differences that exist. `KUBELOOM_FIDELITY_ONLY=<regex>` replays only the matching scenarios.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startApiServer, type ApiServer } from '../../src/testing/index.ts';
import { allowances } from './allow-list.ts';
import { backendFromKubeconfig, findKubectl, type Backend } from './backend.ts';
import { corpus } from './corpus.ts';
import { allowanceFor, describe, diff, type Allowance } from './diff.ts';
import { readGolden } from './golden-files.ts';
import { normaliseRun, type Normalised } from './normalise.ts';
import { runAll, type Run } from './runner.ts';

const kubectl = await findKubectl();
// KUBELOOM_FIDELITY_ONLY=<regex> replays only the scenarios whose id matches (while working on a few of them).
const only = process.env.KUBELOOM_FIDELITY_ONLY === undefined || process.env.KUBELOOM_FIDELITY_ONLY === '' ? undefined : new RegExp(process.env.KUBELOOM_FIDELITY_ONLY);
const scenarios = only === undefined ? corpus : corpus.filter((s) => only.test(s.id));
let server: ApiServer;
let backend: Backend;
const runs = new Map<string, Run>();
const used = new Set<Allowance>();

before(async () => {
  // Configured as the recording cluster: HTTPS (kubectl sends its token only over TLS), RBAC authorization (the
  // kubeconfig's user is in system:masters), and no kube-controller-manager: no namespace controller, no garbage collector.
  server = await startApiServer({ tls: true, rbac: true, controllers: { namespace: false, garbageCollector: false } });
  backend = await backendFromKubeconfig('embedded', server.kubeconfig);
  const results = await runAll(scenarios, { backend, kubectl, eventTimeoutMs: 5_000, userAgent: 'kubeloom-fidelity/v0.0.0' }, 8);
  for (const r of results) runs.set(r.scenario.id, r);
});

after(async () => {
  await backend.close();
  await server.stop();
});

/** Drops the steps kubectl could not run here from both sides. */
function withoutSkipped(golden: Normalised, replay: Normalised): [Normalised, Normalised] {
  const skipped = new Set(replay.steps.flatMap((s, i) => (s.skipped === undefined ? [] : [i])));
  if (skipped.size === 0) return [golden, replay];
  const keep = <T>(steps: T[]): T[] => steps.filter((_, i) => !skipped.has(i));
  return [
    { ...golden, steps: keep(golden.steps) },
    { ...replay, steps: keep(replay.steps) },
  ];
}

for (const scenario of scenarios) {
  test(`fidelity: ${scenario.id} — ${scenario.title}`, async (t) => {
    const golden = await readGolden(scenario.id);
    assert.ok(golden !== undefined, `${scenario.id} has no golden file: run npm run fidelity:record -- --kubeconfig K`);
    const run = runs.get(scenario.id)!;
    const replay = normaliseRun(run);
    if (kubectl === undefined && replay.steps.some((s) => s.skipped !== undefined)) t.diagnostic('kubectl steps skipped: no kubectl binary (set KUBECTL or put kubectl on the PATH)');
    const { recordedFrom: _versions, ...recorded } = golden;
    const [real, embedded] = withoutSkipped(recorded, replay);
    const unexplained = [];
    for (const d of diff(scenario.id, real, embedded)) {
      const a = allowanceFor(d, allowances);
      if (a === undefined) unexplained.push(d);
      else used.add(a);
    }
    assert.equal(unexplained.length, 0, `${scenario.id}: ${unexplained.length} difference(s) from kube-apiserver ${golden.recordedFrom.server}:\n  ${unexplained.map(describe).join('\n  ')}`);
  });
}

test('fidelity: every allowance explains at least one difference', () => {
  if (kubectl === undefined || only !== undefined) return;
  const idle = allowances.filter((a) => !used.has(a)).map((a) => a.id);
  assert.deepEqual(idle, [], 'allow-list entries that match no difference (remove them from allow-list.ts and docs/apiserver-fidelity.md)');
});

test('fidelity: docs/apiserver-fidelity.md lists every allowance with its reason', async () => {
  const doc = await readFile(new URL('../../docs/apiserver-fidelity.md', import.meta.url), 'utf8');
  const missing = allowances.filter((a) => !doc.includes(`\`${a.id}\``)).map((a) => a.id);
  assert.deepEqual(missing, [], 'allowances not documented in docs/apiserver-fidelity.md');
  for (const a of allowances) assert.ok(a.reason.length > 20 && a.upstream.length > 5, `${a.id} needs a reason and an upstream reference`);
  assert.equal(new Set(allowances.map((a) => a.id)).size, allowances.length, 'allowance ids are unique');
});
