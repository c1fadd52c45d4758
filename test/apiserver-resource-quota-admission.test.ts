/**
 * ResourceQuota admission on both backends (apiserver/pkg/admission/plugin/resourcequota): a create over a
 * quota's hard amount is a 403 with upstream's message, a pod that does not request what a quota limits is
 * refused, and an admitted create raises the quota's status.used at once. The quota's status is written by
 * the test (a real server without kube-controller-manager has no quota controller to compute it; the
 * embedded one computes the same amounts).
 */
import assert from 'node:assert/strict';
import { statusOf } from '../src/apimachinery/errors.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { e2eTest } from './support/backend.ts';

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

e2eTest('ResourceQuota admission refuses what exceeds status.hard with upstream\'s message and charges status.used on admit', async (env) => {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const ns = env.namespace;
  const quotas = dyn.resource({ group: '', version: 'v1', resource: 'resourcequotas' }).namespace(ns);
  const pods = dyn.resource({ group: '', version: 'v1', resource: 'pods' }).namespace(ns);
  const services = dyn.resource({ group: '', version: 'v1', resource: 'services' }).namespace(ns);
  const hard = { pods: '1', services: '1', 'requests.cpu': '1' };
  await quotas.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard } });
  await quotas.patch('q', 'application/merge-patch+json', { status: { hard, used: { pods: '0', services: '0', 'requests.cpu': '0' } } }, { subresource: 'status' });
  const pod = (name: string, cpu?: string): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox', ...(cpu === undefined ? {} : { resources: { requests: { cpu } } }) }] },
  });

  // A quota limiting requests.cpu refuses a pod that does not request cpu.
  assert.deepEqual(await refusal(pods.create(pod('no-cpu'))), [403, 'Forbidden', 'pods "no-cpu" is forbidden: failed quota: q: must specify requests.cpu for: c']);
  // An admitted pod is charged to the quota before it is stored.
  await pods.create(pod('p1', '600m'));
  const used = ((await quotas.get('q'))['status'] as { used: Obj }).used;
  assert.deepEqual(used, { pods: '1', services: '0', 'requests.cpu': '600m' });
  // Over the hard amount: 403 naming what was requested, used and limited (only the exceeded resources).
  assert.deepEqual(await refusal(pods.create(pod('p2', '100m'))), [403, 'Forbidden', 'pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1']);
  // A generated name is reported as generated (BeforeCreate runs before validating admission).
  const generated = { ...pod('', '100m'), metadata: { generateName: 'gen-' } };
  assert.match((await refusal(pods.create(generated)))[2] ?? '', /^pods "gen-[a-z0-9]{5}" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1$/);
  // Dry runs are checked but not charged.
  await services.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's0' }, spec: { ports: [{ port: 80 }] } }, { dryRun: ['All'] });
  assert.equal((((await quotas.get('q'))['status'] as { used: Obj }).used)['services'], '0');
  await services.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's1' }, spec: { ports: [{ port: 80 }] } });
  assert.deepEqual(await refusal(services.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's2' }, spec: { ports: [{ port: 80 }] } })), [
    403,
    'Forbidden',
    'services "s2" is forbidden: exceeded quota: q, requested: services=1, used: services=1, limited: services=1',
  ]);
});

e2eTest('ResourceQuota admission charges hugepages under both names and extended resources as requests.<name> only (pods.go MatchingResources, podComputeUsageHelper)', async (env) => {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const quotas = dyn.resource({ group: '', version: 'v1', resource: 'resourcequotas' }).namespace(env.namespace);
  const pods = dyn.resource({ group: '', version: 'v1', resource: 'pods' }).namespace(env.namespace);
  const hard = { 'requests.example.com/dongle': '1', 'hugepages-2Mi': '4Mi', 'requests.hugepages-1Gi': '1Gi' };
  await quotas.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard } });
  await quotas.patch('q', 'application/merge-patch+json', { status: { hard, used: { 'requests.example.com/dongle': '0', 'hugepages-2Mi': '0', 'requests.hugepages-1Gi': '0' } } }, { subresource: 'status' });
  const pod = (name: string, resources: Record<string, string>): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    // Hugepages and extended resources need equal requests and limits (and hugepages a memory or cpu request).
    spec: { schedulerName: 'no-such-scheduler', containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '10m', ...resources }, limits: resources } }] },
  });
  await pods.create(pod('p1', { 'example.com/dongle': '1', 'hugepages-2Mi': '2Mi' }));
  const used = ((await quotas.get('q'))['status'] as { used: Obj }).used;
  assert.deepEqual(used, { 'requests.example.com/dongle': '1', 'hugepages-2Mi': '2Mi', 'requests.hugepages-1Gi': '0' });
  assert.deepEqual(await refusal(pods.create(pod('p2', { 'example.com/dongle': '1' }))), [
    403,
    'Forbidden',
    'pods "p2" is forbidden: exceeded quota: q, requested: requests.example.com/dongle=1, used: requests.example.com/dongle=1, limited: requests.example.com/dongle=1',
  ]);
  assert.deepEqual(await refusal(pods.create(pod('p3', { 'hugepages-2Mi': '4Mi' }))), [403, 'Forbidden', 'pods "p3" is forbidden: exceeded quota: q, requested: hugepages-2Mi=4Mi, used: hugepages-2Mi=2Mi, limited: hugepages-2Mi=4Mi']);
});
