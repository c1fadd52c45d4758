import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import { noopLogger } from '../events/logger.ts';
import { LeaderElector } from './leader-election.ts';
import { FakeLeaseClient, FakeLeaseStore, type LeaseVerb } from './resourcelock/fake-lease-client.ts';
import { LeaseLock } from './resourcelock/lease-lock.ts';

type Action =
  | { kind: 'step'; ms: number }
  | { kind: 'fail'; who: number; verb: LeaseVerb; hang: boolean; count: number }
  | { kind: 'restart'; who: number; release: boolean };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('step' as const), ms: fc.integer({ min: 1, max: 6000 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('fail' as const), who: fc.integer({ min: 0, max: 2 }), verb: fc.constantFrom<LeaseVerb>('get', 'create', 'update'), hang: fc.boolean(), count: fc.integer({ min: 1, max: 8 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), who: fc.integer({ min: 0, max: 2 }), release: fc.boolean() }) },
);

interface Slot {
  client: FakeLeaseClient;
  identity: string;
  abort: AbortController;
  run: Promise<void>;
  /** The live onStartedLeading signal, if leading. */
  leading: AbortSignal | undefined;
}

test('model: with failing, hanging and restarting candidates there are never two leaders at once', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 60 }), fc.double({ min: 0, max: 0.999, noNaN: true }), async (actions, r) => {
      const clock = new FakeClock(0);
      const store = new FakeLeaseStore();
      const violations: string[] = [];
      const slots: Slot[] = [];
      let generation = 0;
      const live = (): Slot[] => slots.filter((s) => s.leading !== undefined && !s.leading.aborted);

      const start = (index: number, releaseOnCancel: boolean): void => {
        const slot = { client: new FakeLeaseClient({ store }), identity: `c${index}-${generation++}`, abort: new AbortController(), leading: undefined } as Slot;
        const elector = new LeaderElector({
          leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000,
          lock: new LeaseLock({ client: slot.client, namespace: 'default', name: 'lock', identity: slot.identity }),
          clock,
          random: () => r,
          logger: noopLogger,
          releaseOnCancel,
          callbacks: {
            onStartedLeading: (signal) => {
              const others = live().filter((s) => s !== slot);
              if (others.length > 0) violations.push(`${slot.identity} started while ${others.map((s) => s.identity).join(',')} led`);
              slot.leading = signal;
            },
            onStoppedLeading: () => {},
          },
        });
        slot.run = elector.run({ signal: slot.abort.signal });
        slots[index] = slot;
      };
      for (let i = 0; i < 3; i++) start(i, false);

      for (const a of actions) {
        if (a.kind === 'step') await clock.step(a.ms);
        else if (a.kind === 'fail') {
          const fault = a.hang ? { verb: a.verb, hang: true as const } : { verb: a.verb, error: new StatusError(newStatus(500, 'InternalError', 'injected')) };
          for (let i = 0; i < a.count; i++) slots[a.who]!.client.inject(fault);
        } else {
          const old = slots[a.who]!;
          old.abort.abort();
          await clock.step(0);
          start(a.who, a.release);
        }
        const leaders = live();
        if (leaders.length > 1) violations.push(`leaders at once: ${leaders.map((s) => s.identity).join(',')}`);
        // A live leader is the one the Lease names (no one can have taken it over yet).
        const holder = store.leases.get('lock')?.spec?.holderIdentity;
        if (leaders.length === 1 && holder !== leaders[0]!.identity) violations.push(`${leaders[0]!.identity} leads but the lease names ${holder}`);
      }
      for (const s of slots) s.abort.abort();
      // Hanging requests end with their aborts; release attempts finish within a renew deadline.
      for (let i = 0; i < 10; i++) await clock.step(10_000);
      await Promise.all(slots.map((s) => s.run));
      assert.deepEqual(violations, []);
    }),
    { numRuns: 60 },
  );
});
