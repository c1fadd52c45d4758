/**
 * Graceful deletion of pods (registry/core/pod-deletion.ts: CheckGracefulDelete and BeforeDelete) and the
 * kubelet stand-in's part in a pod's life: it removes pods being deleted, restarts containers by
 * restartPolicy, and renews its node's Lease in kube-node-lease.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../../src/api/core/v1.ts';
import { isConflict } from '../../src/apimachinery/errors.ts';
import { startApiServer } from '../../src/apiserver/index.ts';
import { encodeKubernetesProtobuf } from '../../src/apiserver/protobuf.ts';
import { newClientset } from '../../src/kubernetes/clientset.ts';
import { FakeClock } from '../../src/util/clock/clock.ts';
import { startCluster, waitForItems } from './support.ts';

const pod = (name: string, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });

test('DELETE of a scheduled pod marks it with now + its grace period and leaves it; shorter periods move the deadline; 0 removes it', async (t) => {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = await startApiServer({ clock });
  const client = newClientset({ host: server.url });
  t.after(async () => {
    await client.close();
    await server.stop();
  });
  const pods = client.coreV1().pods('default');
  await pods.create(pod('bound', { nodeName: 'n1' }));
  await pods.create(pod('custom', { nodeName: 'n1', terminationGracePeriodSeconds: 5 }));
  await pods.create(pod('unbound'));

  const marked = (await pods.delete('bound')) as Pod;
  assert.equal(marked.metadata?.deletionTimestamp, '2026-01-01T00:00:30Z', 'the default terminationGracePeriodSeconds: 30');
  assert.equal(marked.metadata?.deletionGracePeriodSeconds, 30);
  assert.equal((await pods.get('bound')).metadata?.deletionGracePeriodSeconds, 30, 'it stays, Terminating');
  // A second DELETE without a shorter period changes nothing.
  const again = (await pods.delete('bound', { gracePeriodSeconds: 60 })) as Pod;
  assert.equal(again.metadata?.resourceVersion, marked.metadata?.resourceVersion);
  // A shorter one moves the deadline.
  const shorter = (await pods.delete('bound', { gracePeriodSeconds: 10 })) as Pod;
  assert.deepEqual([shorter.metadata?.deletionTimestamp, shorter.metadata?.deletionGracePeriodSeconds], ['2026-01-01T00:00:10Z', 10]);
  // --force --grace-period=0 removes it.
  await pods.delete('bound', { gracePeriodSeconds: 0 });
  await assert.rejects(pods.get('bound'), /not found/);

  const custom = (await pods.delete('custom')) as Pod;
  assert.deepEqual([custom.metadata?.deletionTimestamp, custom.metadata?.deletionGracePeriodSeconds], ['2026-01-01T00:00:05Z', 5], "the pod's own terminationGracePeriodSeconds");
  await pods.create(pod('negative', { nodeName: 'n1' }));
  const negative = (await pods.delete('negative', { gracePeriodSeconds: -3 })) as Pod;
  assert.equal(negative.metadata?.deletionGracePeriodSeconds, 1, 'a negative period counts as 1 s');

  const unbound = (await pods.delete('unbound', { gracePeriodSeconds: 30 })) as Pod;
  assert.equal(unbound.metadata?.deletionGracePeriodSeconds, 0, 'a pod that is not scheduled goes at once');
  await assert.rejects(pods.get('unbound'), /not found/);

  // A uid precondition that does not match refuses the deletion (the kubelet's guard against a namesake).
  await pods.create(pod('guarded', { nodeName: 'n1' }));
  await assert.rejects(pods.delete('guarded', { gracePeriodSeconds: 0, preconditions: { uid: 'other' } }), (err: unknown) => isConflict(err));
});

test('the kubelet stand-in removes a pod being deleted (grace 0, uid precondition) once its containers stopped', async (t) => {
  const { client } = await startCluster(t, { workloads: false });
  const pods = client.coreV1().pods('default');
  await pods.create(pod('web'));
  await waitForItems(pods, (items) => items[0]?.status?.phase === 'Running');
  const marked = (await pods.delete('web')) as Pod;
  assert.equal(marked.metadata?.deletionGracePeriodSeconds, 30);
  await waitForItems(pods, (items) => items.length === 0);
});

test('the kubelet stand-in restarts exited containers by restartPolicy, and renews its node Lease', async (t) => {
  const { client } = await startCluster(t, {
    workloads: false,
    kubelet: { podOutcome: (p) => ((p.status?.containerStatuses?.[0]?.restartCount ?? 0) < 2 ? { phase: 'Failed', exitCode: 2 } : { phase: 'Running' }) },
  });
  const pods = client.coreV1().pods('default');
  await pods.create(pod('always'));
  await pods.create(pod('onfailure', { restartPolicy: 'OnFailure' }));
  await pods.create(pod('never', { restartPolicy: 'Never' }));
  const items = await waitForItems(pods, (all) => {
    const by = new Map(all.map((p) => [p.metadata?.name, p]));
    return by.get('always')?.status?.containerStatuses?.[0]?.restartCount === 2 && by.get('onfailure')?.status?.containerStatuses?.[0]?.restartCount === 2 && by.get('never')?.status?.phase === 'Failed';
  });
  const always = items.find((p) => p.metadata?.name === 'always');
  assert.equal(always?.status?.phase, 'Running');
  assert.equal(always?.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode, 2);
  assert.equal(always?.status?.containerStatuses?.[0]?.state?.running !== undefined, true);
  const never = items.find((p) => p.metadata?.name === 'never');
  assert.equal(never?.status?.containerStatuses?.[0]?.state?.terminated?.reason, 'Error');

  const lease = await client.coordinationV1().leases('kube-node-lease').get('kubeloom-node');
  assert.equal(lease.spec?.holderIdentity, 'kubeloom-node');
  assert.equal(lease.spec?.leaseDurationSeconds, 40);
  assert.match(lease.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(lease.metadata?.ownerReferences?.[0]?.kind, 'Node');
});

test('DELETE accepts DeleteOptions in the protobuf envelope, in the version of the resource deleted (as client-go protobuf clients send them)', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const client = newClientset({ host: server.url });
  t.after(() => client.close());
  await client.coreV1().pods('default').create(pod('p', { nodeName: 'n1' }));
  const body = encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 7 });
  const res = await fetch(`${server.url}/api/v1/namespaces/default/pods/p`, { method: 'DELETE', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as Pod).metadata?.deletionGracePeriodSeconds, 7);
  await client.appsV1().deployments('default').create({ metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } });
  const apps = encodeKubernetesProtobuf({ apiVersion: 'apps/v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' });
  const res2 = await fetch(`${server.url}/apis/apps/v1/namespaces/default/deployments/d`, { method: 'DELETE', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: apps });
  assert.equal(res2.status, 200);
  assert.deepEqual(((await res2.json()) as { metadata?: { finalizers?: string[] } }).metadata?.finalizers, ['orphan']);
});
