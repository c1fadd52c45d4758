// The simulated cluster serves requests with the embedded API server's own handler: defaulting, validation
// (422), server-side apply, JSON patch, strategic merge patch, field selectors, pagination, and watches with
// bookmarks that the server ends at their timeoutSeconds — inside a simulation, on its virtual clock, and
// identically for the same seed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInvalid } from '../../src/apimachinery/errors.ts';
import { RestClient } from '../../src/rest/client.ts';
import type { RestRequest } from '../../src/rest/request.ts';
import { formatReport, noPerturbations, runSimulation, type Simulation } from '../../src/sim/index.ts';

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown>; spec?: Record<string, unknown>; data?: Record<string, string> };

function request(verb: RestRequest['verb'], path: string, o: { query?: Array<[string, string]>; body?: unknown; contentType?: string } = {}): RestRequest {
  return {
    verb,
    path,
    query: o.query ?? [],
    headers: o.body === undefined ? {} : { 'content-type': o.contentType ?? 'application/json' },
    ...(o.body === undefined ? {} : { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) }),
  };
}

const pods = '/api/v1/namespaces/default/pods';
const configMaps = '/api/v1/namespaces/default/configmaps';

/** What the REST process saw, filled as it runs. */
interface Seen {
  defaulted?: Obj;
  invalid?: unknown;
  applied?: Obj;
  jsonPatched?: Obj;
  strategicPatched?: Obj;
  selected?: string[];
  pages?: { names: string[]; continued: boolean }[];
  watched?: string[];
  error?: unknown;
}

function simulation(seen: Seen, perturbed: boolean): Simulation {
  return {
    name: 'API server semantics in a simulation',
    // Perturbed: reordered, delayed and dropped deliveries (failed writes would end the sequence early).
    perturbations: perturbed ? { conflict: 0, writeError: 0, lostResponse: 0, crash: 0, watchDrop: 0 } : noPerturbations,
    start(h) {
      const rest = new RestClient(h.restConfig, h.restClientOptions('client'));
      void (async () => {
        try {
          const pod = { metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'app:1' }, { name: 'sidecar', image: 'side:1' }] } };
          seen.defaulted = await rest.json<Obj>(request('POST', pods, { body: pod }));
          seen.invalid = await rest.json(request('POST', pods, { body: { metadata: { name: 'broken' }, spec: { containers: [{ name: 'app' }] } } })).catch((err: unknown) => err);
          // A strategic merge patch merges containers by name: the sidecar stays.
          seen.strategicPatched = await rest.json<Obj>(request('PATCH', `${pods}/web`, { body: { spec: { containers: [{ name: 'app', image: 'app:2' }] } }, contentType: 'application/strategic-merge-patch+json' }));
          const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
          seen.applied = await rest.json<Obj>(request('PATCH', `${configMaps}/settings`, { query: [['fieldManager', 'sim-apply']], body: cm, contentType: 'application/apply-patch+yaml' }));
          seen.jsonPatched = await rest.json<Obj>(request('PATCH', `${configMaps}/settings`, { body: [{ op: 'add', path: '/data/b', value: '2' }], contentType: 'application/json-patch+json' }));
          for (const name of ['c1', 'c2']) await rest.json(request('POST', configMaps, { body: { metadata: { name } } }));
          const selected = await rest.json<{ items: Obj[] }>(request('GET', pods, { query: [['fieldSelector', 'metadata.name=web']] }));
          seen.selected = selected.items.map((p) => String(p.metadata?.name));
          seen.pages = [];
          let next = '';
          do {
            const page = await rest.json<{ metadata: { continue?: string }; items: Obj[] }>(request('GET', configMaps, { query: [['limit', '2'], ...(next === '' ? [] : [['continue', next] as [string, string]])] }));
            next = page.metadata.continue ?? '';
            seen.pages.push({ names: page.items.map((c) => String(c.metadata?.name)), continued: next !== '' });
          } while (next !== '');
          // A watch asking for bookmarks and a 90 s timeout: a bookmark at 60 s, two just before the end, then the end.
          const stream = await rest.watch<Obj>({ ...request('GET', configMaps, { query: [['allowWatchBookmarks', 'true'], ['resourceVersion', String(seen.jsonPatched.metadata?.resourceVersion)], ['timeoutSeconds', '90'], ['watch', 'true']] }), watch: true, stream: true }, { signal: h.signal });
          seen.watched = [];
          for await (const e of stream) seen.watched.push(`${e.type} ${(e.object as { metadata?: { name?: string } }).metadata?.name ?? ''}@${h.clock.now()}`);
          seen.watched.push(`end@${h.clock.now()}`);
        } catch (err) {
          seen.error = err;
        }
      })();
    },
    async scenario({ sleep, settle }) {
      await sleep(100_000);
      await settle();
    },
  };
}

test('requests in a simulation get the API server handler: defaults, 422, strategic merge, apply, JSON patch, field selector, pagination, bookmarks and watch timeout', async () => {
  const seen: Seen = {};
  const r = await runSimulation(simulation(seen, false), { seed: 1 });
  assert.equal(r.failure, undefined, formatReport(r));
  assert.equal(seen.error, undefined, String(seen.error));
  const spec = seen.defaulted?.spec as { restartPolicy?: string; containers: { terminationMessagePath?: string; imagePullPolicy?: string }[] };
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.containers[0]?.terminationMessagePath, '/dev/termination-log');
  assert.ok(isInvalid(seen.invalid), String(seen.invalid));
  const containers = (seen.strategicPatched?.spec as { containers: { name: string; image: string }[] }).containers;
  assert.deepEqual(
    containers.map((c) => `${c.name}=${c.image}`),
    ['app=app:2', 'sidecar=side:1'],
  );
  const managed = (seen.applied?.metadata?.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}/${m.operation}`);
  assert.deepEqual(managed, ['sim-apply/Apply']);
  assert.deepEqual(seen.jsonPatched?.data, { a: '1', b: '2' });
  assert.deepEqual(seen.selected, ['web']);
  // kube-root-ca.crt is not in the bootstrap; c1, c2, settings in key order, two to a page.
  assert.deepEqual(seen.pages, [
    { names: ['c1', 'c2'], continued: true },
    { names: ['settings'], continued: false },
  ]);
  const start = Number(seen.watched?.[0]?.split('@')[1] ?? NaN);
  const events = seen.watched?.map((w) => w.replace(/@(\d+)$/, (_m, t: string) => `@+${Number(t) - start}`));
  assert.ok(events !== undefined && events.length > 0);
  assert.deepEqual(events?.slice(0, 2), ['ADDED c1@+0', 'ADDED c2@+0']);
  assert.ok(events.includes('BOOKMARK @+60000'), events.join(', '));
  assert.equal(events.at(-1), 'end@+90000', events.join(', '));
  assert.ok(r.trace.some((l) => /WATCH client configmaps closed by the server/.test(l)));
});

test('the same seed gives the same trace through the API server handler, with perturbations', async () => {
  const seen: Seen = {};
  const a = await runSimulation(simulation(seen, true), { seed: 7 });
  assert.equal(seen.error, undefined, String(seen.error));
  assert.ok(a.perturbations.length > 0 && seen.watched?.at(-1)?.startsWith('end@') === true, formatReport(a));
  const b = await runSimulation(simulation({}, true), { seed: 7 });
  assert.deepEqual(b.trace, a.trace);
  const c = await runSimulation(simulation({}, true), { seed: 8 });
  assert.notDeepEqual(c.trace, a.trace);
});
