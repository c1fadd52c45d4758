/**
 * How exec, attach and port-forward are refused before any stream exists, asserted as kube-apiserver
 * v1.24 answers (recorded from it): HTTP code, Status reason, message and details, surfaced by the
 * client as an UpgradeFailureError carrying that Status. Runs on both backends, so the embedded
 * server is held to the recorded answers in `npm test` and the recording is re-checked against the
 * cluster in `npm run test:real`. A cluster without kubelets can only answer these error paths (no
 * pod reaches a node).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Status } from '../src/api/meta/v1.ts';
import { statusOf } from '../src/apimachinery/errors.ts';
import { RestClient } from '../src/rest/client.ts';
import { UpgradeFailureError } from '../src/rest/websocket.ts';
import { attach, exec, StreamProtocolV4Name } from '../src/tools/remotecommand/index.ts';
import { portForward } from '../src/tools/portforward/index.ts';
import { e2eTest, type E2eEnv } from './support/backend.ts';

/** What a refusal looks like to a caller: the error's class and HTTP code, and the server's Status. */
interface Refusal {
  type: string;
  statusCode: number;
  status: Pick<Status, 'code' | 'reason' | 'message' | 'details'>;
}

async function refusal(run: Promise<unknown>): Promise<Refusal> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpgradeFailureError, `expected an UpgradeFailureError, got ${String(err)}`);
  const s = statusOf(err);
  assert.ok(s !== undefined);
  return { type: err.constructor.name, statusCode: err.statusCode, status: { code: s.code, reason: s.reason, message: s.message, ...(s.details !== undefined ? { details: s.details } : {}) } };
}

function refused(code: number, reason: string, message: string, details?: Status['details']): Refusal {
  return { type: 'UpgradeFailureError', statusCode: code, status: { code, reason, message, ...(details !== undefined ? { details } : {}) } };
}

const noHost = refused(400, 'BadRequest', 'pod one does not have a host assigned');
const ghostNotFound = refused(404, 'NotFound', 'pods "ghost" not found', { name: 'ghost', kind: 'pods' });

/** Pods `one` (container app), `two` (app, sidecar), both unscheduled, and `placed`, bound to a node that does not exist. */
async function seed(env: E2eEnv): Promise<RestClient> {
  const pods = env.cs.coreV1().pods(env.namespace);
  await pods.create({ metadata: { name: 'one' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } });
  await pods.create({ metadata: { name: 'two' }, spec: { containers: [{ name: 'app', image: 'busybox' }, { name: 'sidecar', image: 'busybox' }] } });
  await pods.create({ metadata: { name: 'placed' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'app', image: 'busybox' }] } });
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  return rest;
}

const sink = (): PassThrough => new PassThrough().resume();

e2eTest('exec, attach and port-forward are refused with the Status kube-apiserver answers', async (env, t) => {
  const c = await seed(env);
  const namespace = env.namespace;
  const cases: Array<[string, () => Promise<unknown>, Refusal]> = [
    ['exec into a pod that does not exist', () => exec(c, { namespace, pod: 'ghost', command: ['ls'], stdout: sink() }), ghostNotFound],
    ['exec into a pod that has no node', () => exec(c, { namespace, pod: 'one', command: ['ls'], stdout: sink() }), noHost],
    ['exec into a container the pod does not have', () => exec(c, { namespace, pod: 'one', container: 'db', command: ['ls'], stdout: sink() }), refused(400, 'BadRequest', 'container db is not valid for pod one')],
    ['exec without a container in a pod with two', () => exec(c, { namespace, pod: 'two', command: ['ls'], stdout: sink() }), refused(400, 'BadRequest', 'a container name must be specified for pod two, choose one of: [app sidecar]')],
    ['exec offering only v4', () => exec(c, { namespace, pod: 'one', command: ['ls'], stdout: sink(), protocols: [StreamProtocolV4Name] }), noHost],
    ['attach to a pod that has no node', () => attach(c, { namespace, pod: 'one', stdout: sink() }), noHost],
    // kube-apiserver looks the node up and reports it missing under the pods resource.
    ['exec into a pod bound to a node that does not exist', () => exec(c, { namespace, pod: 'placed', command: ['ls'], stdout: sink() }), refused(404, 'NotFound', 'pods "no-such-node" not found', { name: 'no-such-node', kind: 'pods' })],
    ['port-forward to a pod that does not exist', () => portForward(c, { namespace, pod: 'ghost', ports: [':80'] }).ready, ghostNotFound],
    ['port-forward to a pod that has no node', () => portForward(c, { namespace, pod: 'one', ports: [':80'] }).ready, noHost],
  ];
  for (const [name, run, expected] of cases) {
    await t.test(name, async () => assert.deepEqual(await refusal(run()), expected));
  }
});

e2eTest('a plain POST to pods/exec (no upgrade) gets the same Status', async (env) => {
  const c = await seed(env);
  const err = await c.do({ verb: 'POST', path: `/api/v1/namespaces/${env.namespace}/pods/one/exec`, query: [['command', 'ls'], ['stdout', 'true']], headers: {} }).catch((e: unknown) => e);
  const s = statusOf(err);
  assert.deepEqual({ code: s?.code, reason: s?.reason, message: s?.message }, { code: 400, reason: 'BadRequest', message: 'pod one does not have a host assigned' });
});
