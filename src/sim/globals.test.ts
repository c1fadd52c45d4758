import assert from 'node:assert/strict';
import { randomUUID as importedRandomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import type { KubeObject } from '../apimachinery/object.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { SimulationOverlapError, SimulationRealIoError, explore, runSimulation, type SimClient, type Simulation } from './index.ts';
import type { ReconcileFunc } from '../reconcile/reconcile.ts';

interface Stamp extends KubeObject {
  spec: { delayMs: number };
  status?: { firedAt?: number; isoAt?: string; sinceStartMs?: number; token?: string; uuid?: string; bytes?: string };
}
const stamps: ResourceKind<Stamp, unknown> = { group: 'sim.kubeloom.dev', version: 'v1', resource: 'stamps', kind: 'Stamp', namespaced: true, subresources: ['status'] };

async function getOrUndefined(client: SimClient, key: { namespace: string; name: string }): Promise<Stamp | undefined> {
  return client.get(stamps, key).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

// A controller written without kubeloom's Clock: it debounces with setTimeout, reads Date.now, new Date()
// and performance.now, and draws Math.random and crypto.randomUUID, as application code does.
function debouncer(): ReconcileFunc<SimClient> {
  // Names whose timer is armed, per process incarnation (each has a client of its own).
  const armedBy = new WeakMap<SimClient, Set<string>>();
  return async (req, { client }) => {
    const s = await getOrUndefined(client, req);
    let armed = armedBy.get(client);
    if (armed === undefined) armedBy.set(client, (armed = new Set()));
    if (s === undefined || s.status?.firedAt !== undefined || armed.has(req.name)) return;
    armed.add(req.name);
    const t0 = performance.now();
    const fire = (): void => {
      const bytes = new Uint8Array(4);
      crypto.getRandomValues(bytes);
      const status = { firedAt: Date.now(), isoAt: new Date().toISOString(), sinceStartMs: performance.now() - t0, token: Math.random().toString(36).slice(2), uuid: importedRandomUUID(), bytes: [...bytes].join('.') };
      // An injected error: try again in 100 ms.
      client.patchStatus(stamps, req, { status }).catch(() => setTimeout(fire, 100));
    };
    setTimeout(fire, s.spec.delayMs);
  };
}

const timerSim: Simulation = {
  name: 'setTimeout, Date.now, Math.random and randomUUID in a controller',
  controllers: [{ name: 'debouncer', for: stamps, reconcile: debouncer() }],
  async scenario({ client, settle }) {
    for (const [name, delayMs] of [['a', 5_000], ['b', 1_500], ['c', 0]] as const) await client.create(stamps, { metadata: { name, namespace: 'default' }, spec: { delayMs } });
    await settle();
  },
  eventually: [
    {
      name: 'everyStampFired',
      check: (view) => view.list(stamps).find((s) => s.status?.firedAt === undefined)?.metadata?.name,
    },
  ],
};

describe('virtual globals during a simulation run', () => {
  test('a controller using setTimeout, Date.now, new Date(), performance.now, Math.random and crypto replays byte for byte', async () => {
    const before = Date.now();
    for (const seed of [1, 2, 3]) {
      const a = await runSimulation(timerSim, { seed });
      const b = await runSimulation(timerSim, { seed });
      assert.equal(a.failure, undefined, a.trace.join('\n'));
      assert.equal(a.trace.join('\n'), b.trace.join('\n'));
      assert.ok(a.trace.some((l) => l.includes('TIMER setTimeout #')));
    }
    // The values the controller wrote come from the seed and the virtual clock, not from the machine.
    const states: string[] = [];
    const record: Simulation = { ...timerSim, eventually: [{ name: 'record', check: (view) => void states.push(JSON.stringify(view.list(stamps).map((s) => s.status))) }] };
    await runSimulation(record, { seed: 7 });
    await runSimulation(record, { seed: 7 });
    await runSimulation(record, { seed: 8 });
    assert.equal(states[0], states[1]);
    assert.notEqual(states[0], states[2]);
    const status = JSON.parse(states[0]!) as Stamp['status'][];
    assert.ok(status.every((s) => s!.firedAt! < before && s!.isoAt === new Date(s!.firedAt!).toISOString()), 'Date.now and new Date() read the virtual clock (2024), not the machine');
    // Timers fire on virtual time: at least the requested delay after the reconcile that set them (Node's minimum is 1 ms).
    assert.deepEqual(
      status.map((s) => s!.sinceStartMs! >= 1),
      [true, true, true],
    );
    assert.ok(status[0]!.sinceStartMs! >= 5_000 && status[1]!.sinceStartMs! >= 1_500);
    assert.match(status[0]!.uuid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('every global is restored after a run, a failing run and a run that throws', async () => {
    // Identities are compared, never called unbound.
    /* eslint-disable @typescript-eslint/unbound-method */
    const real = { setTimeout, setInterval, clearTimeout, Date, now: Date.now, random: Math.random, perfNow: performance.now, uuid: crypto.randomUUID, importedUuid: importedRandomUUID, readFile };
    const snapshot = (): unknown[] => [globalThis.setTimeout, globalThis.setInterval, globalThis.clearTimeout, globalThis.Date, Date.now, Math.random, performance.now, crypto.randomUUID, importedRandomUUID, readFile];
    const expected = Object.values(real);
    /* eslint-enable @typescript-eslint/unbound-method */
    await runSimulation(timerSim, { seed: 1 });
    assert.deepEqual(snapshot(), expected);
    // explore keeps them installed from one seed to the next, and puts them back at the end.
    assert.equal((await explore(timerSim, { seeds: 3 })).runs, 3);
    assert.deepEqual(snapshot(), expected);
    // An invariant that breaks.
    const failing: Simulation = { ...timerSim, invariants: [{ name: 'neverAStamp', check: (view) => (view.list(stamps).length > 0 ? 'a stamp exists' : undefined) }] };
    assert.equal((await runSimulation(failing, { seed: 1 })).failure?.invariant, 'neverAStamp');
    assert.deepEqual(snapshot(), expected);
    // A process whose start throws: the run rejects, the globals are back.
    const throwing: Simulation = { ...timerSim, start: () => { throw new Error('boom'); } };
    await assert.rejects(runSimulation(throwing, { seed: 1 }), /boom/);
    assert.deepEqual(snapshot(), expected);
    // Virtual timers left pending at the end of a run never fire on the real clock.
    const n = { fired: 0 };
    const leaky: Simulation = { name: 'leaky', async scenario() { setTimeout(() => n.fired++, 1e9); } };
    await runSimulation(leaky, { seed: 1 });
    await new Promise((r) => setImmediate(r));
    assert.equal(n.fired, 0);
  });

  test('runs may not overlap: a second concurrent or nested run is refused with SimulationOverlapError', async () => {
    const [first, second] = await Promise.allSettled([runSimulation(timerSim, { seed: 1 }), runSimulation(timerSim, { seed: 2 })]);
    assert.equal(first.status, 'fulfilled');
    assert.equal(second.status, 'rejected');
    assert.ok(second.reason instanceof SimulationOverlapError && second.reason.code === 'ERR_SIM_OVERLAP');
    let nested: unknown;
    await runSimulation({ name: 'nested', async scenario() { nested = await runSimulation(timerSim, { seed: 3 }).catch((err: unknown) => err); } }, { seed: 1 });
    assert.ok(nested instanceof SimulationOverlapError);
    // And the process is usable afterwards.
    assert.equal((await runSimulation(timerSim, { seed: 4 })).failure, undefined);
  });

  test('real I/O by the code under test ends the run with SimulationRealIoError naming it', async () => {
    const fetching: Simulation = {
      ...timerSim,
      controllers: [{ name: 'fetcher', for: stamps, reconcile: async () => void (await fetch('http://127.0.0.1:65531/webhook').catch(() => undefined)) }],
    };
    const err = await runSimulation(fetching, { seed: 1 }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof SimulationRealIoError, String(err));
    assert.equal(err.code, 'ERR_SIM_REAL_IO');
    assert.equal(err.operation, 'net.connect 127.0.0.1:65531');
    const reading: Simulation = { ...timerSim, controllers: [{ name: 'reader', for: stamps, reconcile: async () => void (await readFile('/etc/hostname').catch(() => undefined)) }] };
    const err2 = await runSimulation(reading, { seed: 1 }).then(() => undefined, (e: unknown) => e);
    assert.ok(err2 instanceof SimulationRealIoError);
    assert.equal(err2.operation, 'fs.promises.readFile /etc/hostname');
    // Restored: the real readFile works again.
    assert.equal(typeof (await readFile(new URL(import.meta.url), 'utf8')), 'string');
  });
});
