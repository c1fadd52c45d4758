/**
 * ResourceQuota admission's limitedResources (the plugin's ResourceQuotaConfiguration), on the embedded
 * server: every expectation below was answered by a kube-apiserver v1.24 started with the same
 * configuration in its --admission-control-config-file (a second instance of the real one, on a separate
 * etcd prefix), with quotas whose status the test writes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusOf } from '../src/apimachinery/errors.ts';
import { startApiServer } from '../src/apiserver/server.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';

type Obj = Record<string, unknown>;

async function refusal(p: Promise<unknown>): Promise<[number | undefined, string | undefined, string | undefined]> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    return [s?.code, s?.reason, s?.message];
  }
  assert.fail('expected the request to be refused');
}

test('limitedResources: consuming a matched resource or falling in a matched scope needs a covering quota (403 / 500 worded as v1.24)', async () => {
  const server = await startApiServer({
    resourceQuota: {
      limitedResources: [
        { resource: 'pods', matchContains: ['example.com/', 'requests.memory'] },
        { resource: 'persistentvolumeclaims', matchContains: ['storage'] },
        { resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['lane-high'] }] },
      ],
    },
  });
  const rest = new RestClient({ host: server.url });
  try {
    const dyn = new DynamicClient(rest);
    const res = (resource: string, group = '', version = 'v1') => dyn.resource({ group, version, resource });
    await res('namespaces').create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lq' } });
    await res('priorityclasses', 'scheduling.k8s.io').create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'lane-high' }, value: 1000 });
    const pods = res('pods').namespace('lq');
    const quotas = res('resourcequotas').namespace('lq');
    const pod = (name: string, resources: Record<string, string>, spec: Obj = {}): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...spec, containers: [{ name: 'c', image: 'busybox', resources: { requests: resources, limits: resources } }] },
    });
    // No quota in the namespace: consuming a limited resource is refused, anything else admitted.
    assert.deepEqual(await refusal(pods.create(pod('p1', { memory: '10Mi', cpu: '1' }))), [403, 'Forbidden', 'pods "p1" is forbidden: insufficient quota to consume: requests.memory']);
    assert.deepEqual(await refusal(pods.create(pod('p3', { 'example.com/dongle': '1', memory: '1Mi' }))), [403, 'Forbidden', 'pods "p3" is forbidden: insufficient quota to consume: requests.example.com/dongle,requests.memory']);
    await pods.create(pod('p4', { cpu: '1' }));
    assert.deepEqual(await refusal(pods.create(pod('p5', { cpu: '1' }, { priorityClassName: 'lane-high' }))), [500, undefined, 'insufficient quota to match these scopes: [{PriorityClass In [lane-high]}]']);
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    assert.deepEqual(await refusal(res('persistentvolumeclaims').namespace('lq').create(claim)), [403, 'Forbidden', 'persistentvolumeclaims "c1" is forbidden: insufficient quota to consume: requests.storage']);

    // A quota limiting requests.memory covers memory; one selecting the PriorityClass scope covers the scope.
    const quota = async (name: string, hard: Record<string, string>, spec: Obj = {}): Promise<void> => {
      await quotas.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { ...spec, hard } });
      await quotas.patch(name, 'application/merge-patch+json', { status: { hard, used: Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])) } }, { subresource: 'status' });
    };
    await quota('q1', { 'requests.memory': '1Gi' });
    await quota('q2', { pods: '10' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['lane-high'] }] } });
    await pods.create(pod('p1', { memory: '10Mi', cpu: '1' }));
    assert.deepEqual(await refusal(pods.create(pod('p3', { 'example.com/dongle': '1', memory: '1Mi' }))), [403, 'Forbidden', 'pods "p3" is forbidden: insufficient quota to consume: requests.example.com/dongle']);
    // The scope is covered now; q1 (unscoped) still wants every pod to request memory.
    assert.deepEqual(await refusal(pods.create(pod('p5', { cpu: '1' }, { priorityClassName: 'lane-high' }))), [403, 'Forbidden', 'pods "p5" is forbidden: failed quota: q1: must specify requests.memory for: c']);
    await pods.create(pod('p6', { memory: '1Mi' }, { priorityClassName: 'lane-high' }));
  } finally {
    await rest.close();
    await server.stop();
  }
});
