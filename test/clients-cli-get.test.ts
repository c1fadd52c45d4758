import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { formatTable, humanDuration, runGet } from '../src/cli/get-command.ts';
import { e2eTest, type E2eEnv } from './support/backend.ts';

interface Run {
  code: number;
  out: string;
  err: string;
}

type Get = (args: string[], live?: { signal: AbortSignal; out: (t: string) => void }) => Promise<Run>;

/** `kubeloom get` bound to a kubeconfig for the test's namespace (standing in for `default`). */
async function getFor(env: E2eEnv): Promise<Get> {
  const kubeconfig = await env.kubeconfig();
  return async (args, live) => {
    let out = '';
    let err = '';
    const stdout = (t: string): void => {
      out += t;
      live?.out(t);
    };
    const code = await runGet([...args, '--kubeconfig', kubeconfig], { stdout, stderr: (t) => (err += t), env: {}, ...(live !== undefined ? { signal: live.signal } : {}) });
    return { code, out, err };
  };
}

/**
 * Seeds the test's namespace (the kubeconfig's, standing in for `default`) and a second one, and
 * hands out `kubeloom get` bound to that kubeconfig.
 */
async function seeded(env: E2eEnv): Promise<{ ns: string; other: string; get: Get }> {
  const { cs, namespace: ns } = env;
  const other = await env.createNamespace('kl-e2e-other');
  await cs.coreV1().pods(ns).create({ metadata: { name: 'web-1', labels: { app: 'web', run: env.suffix } }, spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'x' }] } });
  await cs.coreV1().pods(ns).create({ metadata: { name: 'db-1', labels: { app: 'db', run: env.suffix } }, spec: { containers: [{ name: 'c', image: 'pg' }] } });
  await cs.coreV1().pods(other).create({ metadata: { name: 'x-1', labels: { run: env.suffix } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  await cs.coreV1().configMaps(ns).create({ metadata: { name: 'cfg' } });
  return { ns, other, get: await getFor(env) };
}

/**
 * Masks the AGE cells (the last column) as `<age>`: the server renders the table, so ages come from
 * its clock, which a test cannot set on a real cluster.
 */
function maskAges(text: string): string {
  return text.replace(/(?<= )(?:\d+[smhdy])+$/gm, '<age>');
}

test('humanDuration matches kubectl', () => {
  const cases: Array<[number, string]> = [
    [-5000, '<invalid>'],
    [0, '0s'],
    [45_000, '45s'],
    [119_000, '119s'],
    [200_000, '3m20s'],
    [300_000, '5m'],
    [15 * 60_000, '15m'],
    [(5 * 60 + 10) * 60_000, '5h10m'],
    [30 * 3_600_000, '30h'],
    [(4 * 24 + 3) * 3_600_000, '4d3h'],
    [120 * 24 * 3_600_000, '120d'],
    [(3 * 365 + 20) * 24 * 3_600_000, '3y20d'],
    [9 * 365 * 24 * 3_600_000, '9y'],
  ];
  for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, String(ms));
  assert.equal(formatTable([['NAME', 'AGE'], ['a-long-name', '1h']]).text, 'NAME          AGE\na-long-name   1h\n');
});

for (const tls of [false, true]) {
  e2eTest(`${tls ? 'HTTPS' : 'HTTP'}: get pods prints a kubectl-like table from the kubeconfig's context`, { tls }, async (env) => {
    const { get } = await seeded(env);
    const r = await get(['pods']);
    assert.equal(r.err, '');
    assert.equal(r.code, 0);
    assert.equal(maskAges(r.out), ['NAME    READY   STATUS    RESTARTS   AGE', 'db-1    0/1     Pending   0          <age>', 'web-1   0/2     Pending   0          <age>', ''].join('\n'));
  });
}

e2eTest('get resolves short names, singular names and kinds; -A, -l, -n, names and output formats work', async (env) => {
  const { ns, other, get } = await seeded(env);
  // All namespaces, narrowed to this test's pods: a shared cluster may hold thousands of others.
  const all = await get(['po', '-A', '-l', `run=${env.suffix}`]);
  assert.match(all.out.split('\n')[0]!, /^NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE$/);
  const rows = all.out.trim().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 2).join('/'));
  assert.deepEqual(rows, [`${ns}/db-1`, `${ns}/web-1`, `${other}/x-1`].sort(), 'in namespace order');
  assert.equal((await get(['pod', '-l', 'app=web', '-o', 'name'])).out, 'pod/web-1\n');
  assert.equal((await get(['Pod', '-n', other, '-o', 'name'])).out, 'pod/x-1\n');
  assert.equal(maskAges((await get(['cm', 'cfg'])).out), 'NAME   DATA   AGE\ncfg    0      <age>\n');
  const namespaces = (await get(['namespaces', '-o', 'name'])).out.split('\n');
  for (const n of ['default', 'kube-node-lease', 'kube-public', 'kube-system', ns, other]) assert.ok(namespaces.includes(`namespace/${n}`), n);
  const json = JSON.parse((await get(['configmap', 'cfg', '-o', 'json'])).out);
  assert.equal(json.kind, 'ConfigMap');
  const yaml = parse((await get(['pods', '-o', 'yaml'])).out);
  assert.equal(yaml.kind, 'List');
  assert.deepEqual(yaml.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['db-1', 'web-1']);
  assert.match((await get(['pods', '-o', 'wide'])).out.split('\n')[0]!, /AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
  const empty = await get(['secrets', '-n', other]);
  assert.deepEqual([empty.code, empty.out, empty.err], [0, '', `No resources found in ${other} namespace.\n`]);
  const unknown = await get([`nothings${env.suffix}`]);
  assert.deepEqual([unknown.code, unknown.err], [1, `kubeloom get: the server doesn't have a resource type "nothings${env.suffix}"\n`]);
  const missing = await get(['pods', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /not found/);
  assert.equal((await get([])).code, 2);
  assert.equal((await get(['pods', '-o', 'xml'])).code, 2);
});

e2eTest('get -w prints the list, then a row per change, until stopped', async (env) => {
  const { ns, get } = await seeded(env);
  const controller = new AbortController();
  const cs = env.cs;
  let seen = '';
  const waitFor = async (text: string): Promise<void> => {
    while (!seen.includes(text)) await new Promise((r) => setImmediate(r));
  };
  const running = get(['configmaps', '-w'], { signal: controller.signal, out: (t) => (seen += t) });
  await waitFor('cfg');
  // The list is printed before the watch opens; a change made now is either replayed from the
  // list's resourceVersion or streamed live, so it shows up exactly once either way.
  await cs.coreV1().configMaps(ns).create({ metadata: { name: 'new' } });
  await waitFor('new');
  controller.abort();
  const r = await running;
  assert.equal(r.code, 0);
  assert.deepEqual(maskAges(r.out).split('\n'), ['NAME   DATA   AGE', 'cfg    0      <age>', 'new    0      <age>', '']);
});

e2eTest('get prints a custom resource with its CRD additionalPrinterColumns, as the server renders them', async (env) => {
  const { namespace: ns, suffix } = env;
  const group = `${suffix}.example.com`;
  const plural = `widgets${suffix}`;
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `widget${suffix}`, kind: `Widget${suffix}`, listKind: `Widget${suffix}List`, shortNames: [`wd${suffix}`] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
          ],
        },
      ],
    },
  };
  await env.createCrd(crd);
  const get = await getFor(env);
  // kube-apiserver adds a new CRD to discovery on its own schedule, not necessarily before serving it.
  for (let i = 0; (await get([`wd${suffix}`])).code !== 0; i++) {
    assert.ok(i < 200, `discovery did not list ${plural}.${group} within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const widgets = new DynamicClient(env.cs.restClient).resource({ group, version: 'v1', resource: plural }).namespace(ns);
  await widgets.create({ apiVersion: `${group}/v1`, kind: `Widget${suffix}`, metadata: { name: 'w1' }, spec: { size: 3, color: 'blue' } });
  // Columns a CRD declares replace the default Age column (apiextensions-apiserver's table convertor).
  assert.equal((await get([`wd${suffix}`])).out, 'NAME   SIZE\nw1     3\n');
  assert.equal((await get([`${plural}.${group}`, '-o', 'wide'])).out, 'NAME   SIZE   COLOR\nw1     3      blue\n');
  assert.match((await get([`widget${suffix}`, '-A'])).out, new RegExp(`^NAMESPACE +NAME +SIZE\\n${ns} +w1 +3\\n$`));
});
