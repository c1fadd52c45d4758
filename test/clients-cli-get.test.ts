import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { JSONSchemaProps } from 'kubernetes-types/apiextensions/v1.js';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { formatTable, humanDuration, runGet } from '../src/cli/get-command.ts';

interface Run {
  code: number;
  out: string;
  err: string;
}

type Get = (args: string[], live?: { signal: AbortSignal; out: (t: string) => void }) => Promise<Run>;

async function withServer(tls: boolean, fn: (s: ApiServer, get: Get) => Promise<void>): Promise<void> {
  // The server renders the tables, so ages come from its clock: one hour after every object was created.
  const clock = new FakeClock(Date.now());
  const s = await startApiServer({ tls, clock });
  const dir = mkdtempSync(join(tmpdir(), 'kubeloom-get-'));
  const kubeconfig = join(dir, 'config');
  await s.writeKubeconfig(kubeconfig);
  const cs = newClientset({ host: s.url, qps: -1, ...(s.caCertPem !== undefined ? { tls: { caData: s.caCertPem } } : {}) });
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: 'other' } });
    await cs.coreV1().pods('default').create({ metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'x' }] } });
    await cs.coreV1().pods('default').create({ metadata: { name: 'db-1', labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'pg' }] } });
    await cs.coreV1().pods('other').create({ metadata: { name: 'x-1' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await cs.coreV1().configMaps('default').create({ metadata: { name: 'cfg' } });
    await clock.step(3_600_000);
    await fn(s, async (args, live) => {
      let out = '';
      let err = '';
      const stdout = (t: string): void => {
        out += t;
        live?.out(t);
      };
      const code = await runGet([...args, '--kubeconfig', kubeconfig], { stdout, stderr: (t) => (err += t), env: {}, clock, ...(live !== undefined ? { signal: live.signal } : {}) });
      return { code, out, err };
    });
  } finally {
    await cs.close();
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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
  test(`${tls ? 'HTTPS' : 'HTTP'}: get pods prints a kubectl-like table from the kubeconfig's context`, async () => {
    await withServer(tls, async (_s, get) => {
      const r = await get(['pods']);
      assert.equal(r.err, '');
      assert.equal(r.code, 0);
      assert.equal(r.out, ['NAME    READY   STATUS    RESTARTS   AGE', 'db-1    0/1     Pending   0          60m', 'web-1   0/2     Pending   0          60m', ''].join('\n'));
    });
  });
}

test('get resolves short names, singular names and kinds; -A, -l, -n, names and output formats work', async () => {
  await withServer(false, async (_s, get) => {
    const all = await get(['po', '-A']);
    assert.equal(all.out.split('\n')[0], 'NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE');
    assert.deepEqual(all.out.trim().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 2).join('/')), ['default/db-1', 'default/web-1', 'other/x-1']);
    assert.equal((await get(['pod', '-l', 'app=web', '-o', 'name'])).out, 'pod/web-1\n');
    assert.equal((await get(['Pod', '-n', 'other', '-o', 'name'])).out, 'pod/x-1\n');
    assert.equal((await get(['cm', 'cfg'])).out, 'NAME   DATA   AGE\ncfg    0      60m\n');
    assert.equal((await get(['namespaces', '-o', 'name'])).out, ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'other'].map((n) => `namespace/${n}\n`).join(''));
    const json = JSON.parse((await get(['configmap', 'cfg', '-o', 'json'])).out);
    assert.equal(json.kind, 'ConfigMap');
    const yaml = parse((await get(['pods', '-o', 'yaml'])).out);
    assert.equal(yaml.kind, 'List');
    assert.deepEqual(yaml.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['db-1', 'web-1']);
    assert.match((await get(['pods', '-o', 'wide'])).out.split('\n')[0]!, /AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    const empty = await get(['secrets', '-n', 'other']);
    assert.deepEqual([empty.code, empty.out, empty.err], [0, '', 'No resources found in other namespace.\n']);
    const unknown = await get(['widgets']);
    assert.deepEqual([unknown.code, unknown.err], [1, `kubeloom get: the server doesn't have a resource type "widgets"\n`]);
    const missing = await get(['pods', 'nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /not found/);
    assert.equal((await get([])).code, 2);
    assert.equal((await get(['pods', '-o', 'xml'])).code, 2);
  });
});

test('get -w prints the list, then a row per change, until stopped', async () => {
  await withServer(false, async (s, get) => {
    const controller = new AbortController();
    const cs = newClientset({ host: s.url, qps: -1 });
    let seen = '';
    const waitFor = async (text: string): Promise<void> => {
      while (!seen.includes(text)) await new Promise((r) => setImmediate(r));
    };
    const running = get(['configmaps', '-w'], { signal: controller.signal, out: (t) => (seen += t) });
    await waitFor('cfg');
    // The list is printed before the watch opens; a change made now is either replayed from the
    // list's resourceVersion or streamed live, so it shows up exactly once either way.
    await cs.coreV1().configMaps('default').create({ metadata: { name: 'new' } });
    await waitFor('new');
    controller.abort();
    const r = await running;
    await cs.close();
    assert.equal(r.code, 0);
    const lines = r.out.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['NAME   DATA   AGE', 'cfg    0      60m', 'new    0      0s']);
    assert.deepEqual(lines.slice(3), ['']);
  });
});

test('get prints a custom resource with its CRD additionalPrinterColumns, as the server renders them', async () => {
  await withServer(false, async (s, get) => {
    const cs = newClientset({ host: s.url, qps: -1 });
    try {
      await cs.apiextensionsV1().customResourceDefinitions().create({
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as JSONSchemaProps },
              additionalPrinterColumns: [
                { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
                { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
              ],
            },
          ],
        },
      });
      const widgets = new DynamicClient(cs.restClient).resource({ group: 'example.com', version: 'v1', resource: 'widgets' }).namespace('default');
      for (let i = 0; i < 50 && (await get(['wd'])).code !== 0; i++) await new Promise((r) => setImmediate(r));
      await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3, color: 'blue' } });
      // Columns a CRD declares replace the default Age column (apiextensions-apiserver's table convertor).
      assert.equal((await get(['wd'])).out, 'NAME   SIZE\nw1     3\n');
      assert.equal((await get(['widgets.example.com', '-o', 'wide'])).out, 'NAME   SIZE   COLOR\nw1     3      blue\n');
      assert.equal((await get(['widget', '-A'])).out, 'NAMESPACE   NAME   SIZE\ndefault     w1     3\n');
    } finally {
      await cs.close();
    }
  });
});
