/**
 * The refusals of exec, attach and port-forward compared between a real kube-apiserver and the
 * embedded one: same HTTP code, reason and message, surfaced by the client as the same typed error.
 * A cluster without kubelets can only answer these error paths (no pod reaches a node).
 *
 * Runs when KUBELOOM_REAL_KUBECONFIG names the kubeconfig of a real cluster it may create and
 * delete a namespace in; skipped otherwise.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { UpgradeFailureError } from '../src/rest/websocket.ts';
import { loadKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { statusOf } from '../src/apimachinery/errors.ts';
import { exec, attach, StreamProtocolV4Name } from '../src/tools/remotecommand/index.ts';
import { portForward } from '../src/tools/portforward/index.ts';
import { PassThrough } from 'node:stream';

const kubeconfigPath = process.env['KUBELOOM_REAL_KUBECONFIG'];
const skip = kubeconfigPath === undefined || kubeconfigPath === '' ? 'set KUBELOOM_REAL_KUBECONFIG to compare with a real kube-apiserver' : false;
const namespace = `kubeloom-stream-${randomBytes(3).toString('hex')}`;
let real: RestClient;
let embedded: ApiServer;
let local: RestClient;

async function createPod(client: RestClient, ns: string, name: string, containers: string[]): Promise<void> {
  await client.json({
    verb: 'POST',
    path: `/api/v1/namespaces/${ns}/pods`,
    query: [],
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) } }),
  });
}

before(async () => {
  if (skip !== false) return;
  real = new RestClient(await restConfigFrom(await loadKubeConfig({ path: kubeconfigPath! })));
  await real.json({ verb: 'POST', path: '/api/v1/namespaces', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) });
  embedded = await startApiServer();
  local = new RestClient({ host: embedded.url });
  await local.json({ verb: 'POST', path: '/api/v1/namespaces', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }) });
  for (const c of [real, local]) {
    await createPod(c, namespace, 'one', ['app']);
    await createPod(c, namespace, 'two', ['app', 'sidecar']);
    await c.json({
      verb: 'POST',
      path: `/api/v1/namespaces/${namespace}/pods`,
      query: [],
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'placed' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'app', image: 'busybox' }] } }),
    });
  }
});

after(async () => {
  if (skip !== false) return;
  await real.do({ verb: 'DELETE', path: `/api/v1/namespaces/${namespace}`, query: [], headers: {} }).catch(() => undefined);
  await real.close();
  await local.close();
  await embedded.stop();
});

/** What a refusal looks like to a caller: error class, HTTP code, reason, message. */
async function refusal(run: (c: RestClient) => Promise<unknown>, c: RestClient): Promise<{ type: string; status: number; code: number | undefined; reason: string | undefined; message: string | undefined }> {
  const err = await run(c).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpgradeFailureError, `expected an UpgradeFailureError, got ${String(err)}`);
  const s = statusOf(err);
  return { type: err.constructor.name, status: err.statusCode, code: s?.code, reason: s?.reason, message: s?.message };
}

const sink = (): PassThrough => new PassThrough().resume();
const cases: Array<[string, (c: RestClient) => Promise<unknown>]> = [
  ['exec into a pod that does not exist', (c) => exec(c, { namespace, pod: 'ghost', command: ['ls'], stdout: sink() })],
  ['exec into a pod that has no node', (c) => exec(c, { namespace, pod: 'one', command: ['ls'], stdout: sink() })],
  ['exec into a container the pod does not have', (c) => exec(c, { namespace, pod: 'one', container: 'db', command: ['ls'], stdout: sink() })],
  ['exec without a container in a pod with two', (c) => exec(c, { namespace, pod: 'two', command: ['ls'], stdout: sink() })],
  ['exec offering only v4', (c) => exec(c, { namespace, pod: 'one', command: ['ls'], stdout: sink(), protocols: [StreamProtocolV4Name] })],
  ['attach to a pod that has no node', (c) => attach(c, { namespace, pod: 'one', stdout: sink() })],
  ['exec into a pod bound to a node that does not exist', (c) => exec(c, { namespace, pod: 'placed', command: ['ls'], stdout: sink() })],
  ['port-forward to a pod that does not exist', (c) => portForward(c, { namespace, pod: 'ghost', ports: [':80'] }).ready],
  ['port-forward to a pod that has no node', (c) => portForward(c, { namespace, pod: 'one', ports: [':80'] }).ready],
];

for (const [name, run] of cases) {
  test(`${name}: the embedded server refuses as kube-apiserver does`, { skip }, async () => {
    const fromReal = await refusal(run, real);
    const fromEmbedded = await refusal(run, local);
    assert.deepEqual(fromEmbedded, fromReal);
  });
}

test('a plain POST to pods/exec (no upgrade) gets the same Status', { skip }, async () => {
  const plain = async (c: RestClient): Promise<unknown> => {
    const err = await c.do({ verb: 'POST', path: `/api/v1/namespaces/${namespace}/pods/one/exec`, query: [['command', 'ls'], ['stdout', 'true']], headers: {} }).catch((e: unknown) => e);
    return statusOf(err);
  };
  assert.deepEqual(await plain(local), await plain(real));
});
