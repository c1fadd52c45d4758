import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Toleration } from '../../api/core/v1.ts';
import { newClientset } from '../../kubernetes/clientset.ts';
import { startApiServer } from '../index.ts';

const notReady300 = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable300 = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

// Each pod's tolerations as kube-apiserver v1.24 returned them from a server-side dry-run create (an empty
// key is not serialised there either).
const cases: [string, Toleration[], Toleration[]][] = [
  ['none: both, not-ready first', [], [notReady300, unreachable300]],
  ['Exists without key or effect tolerates both', [{ operator: 'Exists' }], [{ operator: 'Exists' }]],
  ['an empty key is no key', [{ key: '', operator: 'Exists' }], [{ operator: 'Exists' }]],
  ['a NoSchedule wildcard does not cover NoExecute', [{ operator: 'Exists', effect: 'NoSchedule' }], [{ operator: 'Exists', effect: 'NoSchedule' }, notReady300, unreachable300]],
  ['a NoExecute wildcard covers both', [{ operator: 'Exists', effect: 'NoExecute' }], [{ operator: 'Exists', effect: 'NoExecute' }]],
  ['not-ready for every effect covers not-ready', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }, unreachable300]],
  ['an own unreachable tolerationSeconds is kept', [{ ...unreachable300, tolerationSeconds: 5 }], [{ ...unreachable300, tolerationSeconds: 5 }, notReady300]],
  ['any unreachable:NoExecute toleration counts, whatever its operator and value', [{ key: 'node.kubernetes.io/unreachable', operator: 'Equal', value: 'x', effect: 'NoExecute' }], [{ key: 'node.kubernetes.io/unreachable', operator: 'Equal', value: 'x', effect: 'NoExecute' }, notReady300]],
];

test('DefaultTolerationSeconds adds the 300 s not-ready and unreachable NoExecute tolerations exactly as kube-apiserver v1.24', async (t) => {
  const server = await startApiServer();
  const client = newClientset({ host: server.url });
  t.after(async () => {
    await client.close();
    await server.stop();
  });
  for (const [what, given, want] of cases) {
    const pod = await client.coreV1().pods('default').create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }], tolerations: given } }, { dryRun: ['All'] });
    assert.deepEqual(pod.spec?.tolerations, want, what);
  }
});
