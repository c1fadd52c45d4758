/**
 * What a client sees of the kubelet and scheduler stand-ins' writes, as plain data: a pod through its stages
 * (resourceVersion, managedFields, status; the random uid and the container ids made from it left out), a
 * node's Lease before and after a renewal, and the node. apiserver-kwok.test.ts compares it with a recorded
 * transcript, so that making the stand-ins cheaper cannot change what they write.
 */
import { FakeClock } from '../src/util/clock/index.ts';
import type { ApiServer } from '../src/testing/index.ts';
import { call, create, pod, withControllers, type Json } from './apiserver-helpers.ts';

const pods = '/api/v1/namespaces/default/pods';

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) if (k !== 'uid' && k !== 'containerID') out[k.replace(/^k:\{"uid":"[^"]*"\}$/, 'k:{"uid":"*"}')] = scrub(v);
  return out;
}

/** The transcript of one pod on three kwok nodes with pendingMs 1,000 and readyMs 2,000, and of the Lease of its node. */
export async function standInsTranscript(): Promise<Json[]> {
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  const out: Json[] = [];
  await withControllers({ clock, controllers: { scheduler: true, kubelet: { nodeCount: 3, stages: { pendingMs: 1_000, readyMs: 2_000 } } } }, async (s: ApiServer) => {
    const seen = async (what: string, path: string): Promise<void> => {
      const o = (await call(s, 'GET', path)).body as Json;
      out.push(scrub({ what, resourceVersion: o.metadata.resourceVersion, managedFields: o.metadata.managedFields, spec: what.startsWith('pod') ? { nodeName: o.spec.nodeName } : o.spec, status: o.status }) as Json);
    };
    await create(s, pods, pod('web', { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }, { name: 'side', image: 'busybox' }] } }));
    await s.controllers.waitForIdle();
    await seen('pod scheduled', `${pods}/web`);
    await clock.step(1_000);
    await s.controllers.waitForIdle();
    await seen('pod running', `${pods}/web`);
    await clock.step(2_000);
    await s.controllers.waitForIdle();
    await seen('pod ready', `${pods}/web`);
    await seen('lease', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kwok-node-0');
    await clock.step(7_000);
    await s.controllers.waitForIdle();
    await seen('lease renewed', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kwok-node-0');
    await seen('node', '/api/v1/nodes/kwok-node-0');
  });
  return out;
}
