import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../apimachinery/object.ts';
import { isConflict, isNotFound } from '../../../apimachinery/errors.ts';
import { FakeLeaseClient } from './fake-lease-client.ts';
import { rawRecord, type LeaderElectionRecord } from './interface.ts';
import { LeaseLock, LeaseNotInitializedError, leaderElectionRecordToLeaseSpec, leaseSpecToLeaderElectionRecord } from './lease-lock.ts';

const record: LeaderElectionRecord = {
  holderIdentity: 'a',
  leaseDurationSeconds: 15,
  acquireTime: Date.UTC(2024, 0, 1, 0, 0, 0, 250),
  renewTime: Date.UTC(2024, 0, 1, 0, 0, 5),
  leaderTransitions: 3,
};

test('a record converts to a Lease spec with MicroTime timestamps and back', () => {
  const spec = leaderElectionRecordToLeaseSpec(record);
  assert.deepEqual(spec, {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    leaseTransitions: 3,
    acquireTime: '2024-01-01T00:00:00.250000Z',
    renewTime: '2024-01-01T00:00:05.000000Z',
  });
  assert.deepEqual(leaseSpecToLeaderElectionRecord(spec), record);
});

test('absent or malformed spec fields read as empty values', () => {
  assert.deepEqual(leaseSpecToLeaderElectionRecord(undefined), { holderIdentity: '', leaseDurationSeconds: 0, leaderTransitions: 0 });
  assert.deepEqual(leaseSpecToLeaderElectionRecord({ holderIdentity: 'x', renewTime: 'yesterday', acquireTime: '2024-01-01T01:00:00.123456+01:00' }), {
    holderIdentity: 'x',
    leaseDurationSeconds: 0,
    leaderTransitions: 0,
    acquireTime: Date.UTC(2024, 0, 1, 0, 0, 0, 123),
  });
});

test('LeaseLock creates, reads and updates the Lease with its resourceVersion; a stale lock gets a Conflict', async () => {
  const client = new FakeLeaseClient({ namespace: 'kube-system' });
  const lock = new LeaseLock({ client, namespace: 'kube-system', name: 'ctrl', identity: 'a', labels: { app: 'demo' } });
  assert.equal(lock.describe(), 'kube-system/ctrl');
  assert.equal(lock.identity(), 'a');
  await assert.rejects(lock.get(), isNotFound);
  await assert.rejects(lock.update(record), LeaseNotInitializedError);
  await lock.create(record);
  const stored = client.store.leases.get('ctrl')!;
  assert.deepEqual(stored.metadata?.labels, { app: 'demo' });
  assert.equal(stored.kind, 'Lease');

  const other = new LeaseLock({ client: new FakeLeaseClient({ store: client.store }), namespace: 'kube-system', name: 'ctrl', identity: 'b' });
  const seen = await other.get();
  assert.deepEqual(seen, { record, raw: rawRecord(record) });

  await lock.update({ ...record, renewTime: record.renewTime! + 2000 });
  await assert.rejects(other.update({ ...record, holderIdentity: 'b' }), isConflict);
  assert.equal(client.store.leases.get('ctrl')!.spec?.holderIdentity, 'a');
  const again = await other.get();
  assert.notEqual(again.raw, seen.raw);
  await other.update({ ...record, holderIdentity: 'b' });
  assert.equal(client.store.leases.get('ctrl')!.spec?.holderIdentity, 'b');
});

test('recordEvent reports "<identity> <message>" about the Lease through the recorder', async () => {
  const events: Array<[KubeObject, string, string, string]> = [];
  const client = new FakeLeaseClient();
  const lock = new LeaseLock({ client, namespace: 'default', name: 'ctrl', identity: 'a', eventRecorder: { eventf: (...args) => events.push(args) } });
  await lock.create(record);
  lock.recordEvent('became leader');
  assert.equal(events.length, 1);
  const [subject, type, reason, message] = events[0]!;
  assert.equal(subject.kind, 'Lease');
  assert.equal(subject.apiVersion, 'coordination.k8s.io/v1');
  assert.equal(subject.metadata?.name, 'ctrl');
  assert.equal(subject.metadata?.uid, 'uid-ctrl');
  assert.deepEqual([type, reason, message], ['Normal', 'LeaderElection', 'a became leader']);
  new LeaseLock({ client, namespace: 'default', name: 'ctrl', identity: 'a' }).recordEvent('no recorder: nothing happens');
});
