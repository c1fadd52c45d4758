/**
 * Records the fidelity corpus from a real cluster into the golden files:
 *
 *   npm run fidelity:record -- --kubeconfig K [--only REGEX] [--concurrency N] [--check] [--gates G1,G2] [--no-sweep]
 *
 * The kubeconfig may also come from KUBELOOM_TEST_KUBECONFIG. Every scenario runs in a namespace of its
 * own (`fid-…`), cluster-scoped objects carry the run token in their names, and everything is deleted
 * afterwards (namespaces are finalized by hand on clusters without a controller-manager). `--check`
 * runs each scenario twice and reports what differs between the two runs (nondeterminism to fix in the
 * scenario or the normaliser) instead of writing.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { backendFromKubeconfig, findKubectl, type Backend } from './backend.ts';
import { corpus } from './corpus.ts';
import { describe, diff } from './diff.ts';
import { goldenDir, writeGolden } from './golden-files.ts';
import { normaliseRun } from './normalise.ts';
import { deleteNamespace, runAll, type RunOptions } from './runner.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    only: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    check: { type: 'boolean', default: false },
    gates: { type: 'string', default: '' },
    // Skip the sweep of leftovers (fid-* namespaces), e.g. while someone else records against the same cluster.
    'no-sweep': { type: 'boolean', default: false },
  },
});

const kubeconfigPath = values.kubeconfig ?? process.env.KUBELOOM_TEST_KUBECONFIG;
if (kubeconfigPath === undefined || kubeconfigPath === '') {
  process.stderr.write('fidelity:record needs a real cluster: pass --kubeconfig K or set KUBELOOM_TEST_KUBECONFIG.\n');
  process.exit(2);
}

async function getJson(b: Backend, path: string): Promise<Record<string, unknown>> {
  const r = await request(b.url + path, { headers: { authorization: `Bearer ${b.token ?? ''}`, accept: 'application/json' }, dispatcher: b.dispatcher });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`GET ${path}: ${r.statusCode} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Deletes what an interrupted earlier recording left: fid- namespaces and the corpus' cluster-scoped objects. */
async function sweep(o: RunOptions): Promise<void> {
  const b = o.backend;
  const namespaces = (await getJson(b, '/api/v1/namespaces')).items as Array<{ metadata: { name: string } }>;
  for (const ns of namespaces) if (ns.metadata.name.startsWith('fid-')) await deleteNamespace(o, ns.metadata.name);
  const clusterScoped = [
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    '/apis/scheduling.k8s.io/v1/priorityclasses',
  ];
  for (const path of clusterScoped) {
    const items = (await getJson(b, path)).items as Array<{ metadata: { name: string } }>;
    for (const it of items) {
      const n = it.metadata.name;
      if (!(n.startsWith('fid-') || n.includes('.fid-') || n.endsWith('.fidelity.kubeloom.test'))) continue;
      const r = await request(`${b.url}${path}/${n}`, { method: 'DELETE', headers: { authorization: `Bearer ${b.token ?? ''}` }, dispatcher: b.dispatcher });
      await r.body.text();
    }
  }
}

async function versions(b: Backend, kubectl: string): Promise<{ server: string; kubectl: string }> {
  const v = await getJson(b, '/version');
  const { stdout } = await promisify(execFile)(kubectl, ['version', '--client', '-o', 'json']);
  const k = JSON.parse(stdout) as { clientVersion: { gitVersion: string } };
  return { server: String(v.gitVersion), kubectl: k.clientVersion.gitVersion };
}

async function main(): Promise<void> {
  const backend = await backendFromKubeconfig('real', await readFile(kubeconfigPath!, 'utf8'));
  const kubectl = await findKubectl();
  if (kubectl === undefined) throw new Error('recording needs kubectl (set KUBECTL or put it on the PATH)');
  const only = values.only === undefined ? undefined : new RegExp(values.only);
  // Scenarios that need a feature gate are recorded only from a server started with it (--gates names it).
  const gates = new Set(values.gates.split(',').filter((g) => g !== ''));
  const scenarios = corpus.filter((s) => (only === undefined || only.test(s.id)) && (s.gate === undefined || gates.has(s.gate)));
  const skipped = corpus.filter((s) => s.gate !== undefined && !gates.has(s.gate) && (only === undefined || only.test(s.id)));
  if (skipped.length > 0) process.stdout.write(`skipped ${skipped.length} scenario(s) needing feature gates (--gates ${[...new Set(skipped.map((s) => s.gate))].join(',')}): ${skipped.map((s) => s.id).join(', ')}\n`);
  const options = (): RunOptions => ({ backend, kubectl, eventTimeoutMs: 10_000, userAgent: 'kubeloom-fidelity/v0.0.0' });
  const concurrency = Number(values.concurrency);
  try {
    if (!values['no-sweep']) await sweep(options());
    const recordedFrom = await versions(backend, kubectl);
    const first = await runAll(scenarios, options(), concurrency, (r) => process.stdout.write(`${r.error === undefined ? 'ok  ' : 'ERR '} ${r.scenario.id}${r.error === undefined ? '' : `: ${r.error}`}\n`));
    if (values.check) {
      const second = await runAll(scenarios, options(), concurrency);
      let unstable = 0;
      first.forEach((r, i) => {
        const d = diff(r.scenario.id, normaliseRun(r), normaliseRun(second[i]!));
        if (d.length === 0) return;
        unstable++;
        process.stdout.write(`UNSTABLE ${r.scenario.id}\n${d.map((x) => `  ${describe(x)}`).join('\n')}\n`);
      });
      process.stdout.write(`${scenarios.length} scenarios, ${unstable} unstable\n`);
      if (unstable > 0) process.exitCode = 1;
      return;
    }
    for (const r of first) await writeGolden({ recordedFrom, ...normaliseRun(r) });
    if (only === undefined) {
      // Drop golden files of scenarios that left the corpus.
      const ids = new Set(corpus.map((s) => s.id));
      for (const area of await readdir(goldenDir)) {
        for (const f of await readdir(join(goldenDir, area))) {
          const id = `${area}/${f.replace(/\.json$/, '')}`;
          if (!ids.has(id)) await rm(join(goldenDir, area, f));
        }
      }
    }
    const failed = first.filter((r) => r.error !== undefined).length;
    process.stdout.write(`recorded ${first.length} scenarios into ${relative(process.cwd(), goldenDir)} (${failed} with run errors) from ${recordedFrom.server}, kubectl ${recordedFrom.kubectl}\n`);
    if (failed > 0) process.exitCode = 1;
  } finally {
    await backend.close();
  }
}

await main();
