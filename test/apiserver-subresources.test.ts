/**
 * The write subresources kubectl drain, debug, certificate approve and `kubectl scale` by apply rely
 * on, on either backend (the answers were checked against kube-apiserver v1.24):
 * pods/eviction with PodDisruptionBudgets, pods/ephemeralcontainers, CertificateSigningRequests with
 * /status and /approval, and server-side apply to deployments/scale.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { StatusError } from '../src/apimachinery/errors.ts';
import type { Status } from '../src/api/meta/v1.ts';
import { RestClient, type HttpVerb } from '../src/rest/index.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

type Json = Record<string, unknown>;

/** Sends one request; resolves with the answer's body, or with the Status of a refusal. */
async function call(env: E2eEnv, verb: HttpVerb, path: string, body?: unknown, contentType = 'application/json', query: [string, string][] = []): Promise<{ ok: true; body: Json } | { ok: false; status: Status }> {
  // No Retry-After retries: the test looks at each 429 itself.
  const rest = new RestClient(env.restConfig(), { maxRetries: 0 });
  try {
    const out = await rest.json<Json>({ verb, path, query, headers: { 'content-type': contentType, accept: 'application/json' }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    return { ok: true, body: out };
  } catch (err) {
    if (err instanceof StatusError) return { ok: false, status: err.status };
    throw err;
  } finally {
    await rest.close();
  }
}

/** Sends one request that must succeed; resolves with the answer's body. */
async function must(env: E2eEnv, verb: HttpVerb, path: string, body?: unknown, contentType?: string, query?: [string, string][]): Promise<Json> {
  const r = await call(env, verb, path, body, contentType, query);
  assert.ok(r.ok, `${verb} ${path} was refused: ${JSON.stringify(r)}`);
  return (r as { body: Json }).body;
}

async function refused(env: E2eEnv, verb: HttpVerb, path: string, body?: unknown, contentType?: string, query?: [string, string][]): Promise<Status> {
  const r = await call(env, verb, path, body, contentType, query);
  assert.equal(r.ok, false, `${verb} ${path} was accepted`);
  return (r as { status: Status }).status;
}

function pod(name: string, labels: Record<string, string> = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { nodeName: 'nowhere', containers: [{ name: 'main', image: 'busybox' }] } };
}

/** Resolves after `ms` on the real clock (between polls of a real cluster, never as an assertion). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const evictionOf = (name: string, extra: Json = {}): Json => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...extra });

e2eTest('pods/eviction: a PodDisruptionBudget refuses with 429 and a DisruptionBudget cause until it allows a disruption, which the eviction uses up', { needs: [Capability.PodSubresources] }, async (env) => {
  const pods = `/api/v1/namespaces/${env.namespace}/pods`;
  const pdbs = `/apis/policy/v1/namespaces/${env.namespace}/poddisruptionbudgets`;
  await must(env, 'POST', pods, pod('guarded', { app: 'g' }));
  await must(env, 'PATCH', `${pods}/guarded/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
  await must(env, 'POST', pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'g' } } } });

  // A real apiserver may read budgets from a cache that has not seen the new one yet: probe with dry runs.
  for (let i = 0; i < 50 && (await call(env, 'POST', `${pods}/guarded/eviction`, evictionOf('guarded', { deleteOptions: { dryRun: ['All'] } }))).ok; i++) await pause(100);
  // No disruption controller has looked at the budget yet.
  const pending = await refused(env, 'POST', `${pods}/guarded/eviction`, evictionOf('guarded'));
  assert.equal(pending.code, 429);
  assert.equal(pending.reason, 'TooManyRequests');
  assert.equal(pending.message, "Cannot evict pod as it would violate the pod's disruption budget.");
  assert.deepEqual(pending.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard is still being processed by the server.' }], retryAfterSeconds: 10 });

  // The budget's status as a disruption controller would write it: no disruption allowed.
  const status = (allowed: number): Json => ({ status: { observedGeneration: 1, disruptionsAllowed: allowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } });
  await must(env, 'PATCH', `${pdbs}/guard/status`, status(0), 'application/merge-patch+json');
  const none = await refused(env, 'POST', `${pods}/guarded/eviction`, evictionOf('guarded'));
  assert.equal(none.code, 429);
  assert.deepEqual(none.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard needs 1 healthy pods and has 1 currently' }] });

  await must(env, 'PATCH', `${pdbs}/guard/status`, status(1), 'application/merge-patch+json');
  const done = await call(env, 'POST', `${pods}/guarded/eviction`, evictionOf('guarded'));
  assert.deepEqual(done, { ok: true, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } });
  const after = await call(env, 'GET', `${pdbs}/guard`);
  assert.ok(after.ok);
  const pdbStatus = after.body.status as Json;
  assert.equal(pdbStatus.disruptionsAllowed, 0);
  assert.deepEqual(Object.keys(pdbStatus.disruptedPods as Json), ['guarded']);
  // Gone, or (on a cluster whose kubelet would still stop it) marked for deletion.
  const gone = await call(env, 'GET', `${pods}/guarded`);
  assert.ok(gone.ok ? (gone.body.metadata as Json).deletionTimestamp !== undefined : gone.status.code === 404);
});

e2eTest('pods/eviction: the Eviction must name the pod; its DeleteOptions (preconditions, dryRun) govern the deletion', { needs: [Capability.PodSubresources] }, async (env) => {
  const pods = `/api/v1/namespaces/${env.namespace}/pods`;
  await must(env, 'POST', pods, pod('p'));
  const mismatch = await refused(env, 'POST', `${pods}/p/eviction`, evictionOf('q'));
  assert.equal(mismatch.code, 400);
  assert.equal(mismatch.message, 'name in URL does not match name in Eviction object');
  const stale = await refused(env, 'POST', `${pods}/p/eviction`, evictionOf('p', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } }));
  assert.equal(stale.code, 409);
  assert.equal(stale.reason, 'Conflict');
  assert.match(stale.message ?? '', /^Operation cannot be fulfilled on Pod "p": the UID in the precondition \(not-the-uid\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/);
  const dry = await call(env, 'POST', `${pods}/p/eviction`, { ...evictionOf('p'), apiVersion: 'policy/v1beta1', deleteOptions: { dryRun: ['All'] } });
  assert.ok(dry.ok);
  assert.ok((await call(env, 'GET', `${pods}/p`)).ok, 'a dry-run eviction leaves the pod');
  assert.ok((await call(env, 'POST', `${pods}/p/eviction`, evictionOf('p', { deleteOptions: { gracePeriodSeconds: 0 } }))).ok);
  assert.equal((await refused(env, 'POST', `${pods}/p/eviction`, evictionOf('p'))).code, 404);
});

e2eTest('pods/ephemeralcontainers: adds containers; existing ones may not be removed; fields an ephemeral container may not have are refused', { needs: [Capability.PodSubresources] }, async (env) => {
  const pods = `/api/v1/namespaces/${env.namespace}/pods`;
  await must(env, 'POST', pods, pod('p'));
  const added = await call(env, 'PATCH', `${pods}/p/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } }, 'application/strategic-merge-patch+json');
  assert.ok(added.ok);
  const ec = ((added.body.spec as Json).ephemeralContainers as Json[])[0]!;
  assert.deepEqual(ec, { name: 'dbg', image: 'busybox', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' });
  const removed = await refused(env, 'PATCH', `${pods}/p/ephemeralcontainers`, [{ op: 'remove', path: '/spec/ephemeralContainers/0' }], 'application/json-patch+json');
  assert.equal(removed.code, 422);
  assert.equal(removed.message, 'Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n');
  const ports = await refused(env, 'PATCH', `${pods}/p/ephemeralcontainers`, [{ op: 'add', path: '/spec/ephemeralContainers/-', value: { name: 'dbg2', image: 'busybox', ports: [{ containerPort: 80 }] } }], 'application/json-patch+json');
  assert.equal(ports.code, 422);
  assert.equal(ports.message, 'Pod "p" is invalid: spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container');
  // Only the ephemeral containers change through the subresource.
  const labelled = await call(env, 'PATCH', `${pods}/p/ephemeralcontainers`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
  assert.ok(labelled.ok);
  assert.equal((labelled.body.metadata as Json).labels, undefined);
});

e2eTest('certificatesigningrequests: the requester is recorded; /approval sets conditions, validated as upstream; /status may not approve', { needs: [Capability.CertificateApproval], token: true }, async (env) => {
  const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  const request = Buffer.from(await readFile(new URL('./fixtures/csr.pem', import.meta.url), 'utf8')).toString('base64');
  const name = env.uniqueName('kl-csr');
  env.defer(async () => {
    await call(env, 'DELETE', `${csrs}/${name}`);
  });
  const bad = await refused(env, 'POST', csrs, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from('hello').toString('base64'), signerName: 'nope', usages: ['bogus'] } });
  assert.equal(bad.code, 422);
  assert.deepEqual(bad.details?.causes?.map((c) => `${c.field}: ${c.message}`), [
    'spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must be CERTIFICATE REQUEST',
    'spec.usages[0]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
    "spec.signerName: Invalid value: \"nope\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
  ]);
  const created = await call(env, 'POST', csrs, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'example.com/signer', usages: ['client auth'], username: 'someone-else' } });
  assert.ok(created.ok);
  const spec = created.body.spec as Json;
  assert.notEqual(spec.username, 'someone-else');
  assert.ok((spec.groups as string[]).includes('system:authenticated'));
  assert.deepEqual(created.body.status, {});

  const approved = { type: 'Approved', status: 'True', reason: 'Test', message: 'approved' };
  const viaStatus = await refused(env, 'PUT', `${csrs}/${name}/status`, { ...created.body, status: { conditions: [approved] } });
  assert.equal(viaStatus.code, 422);
  assert.equal(viaStatus.message, `CertificateSigningRequest.certificates.k8s.io "${name}" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"`);
  const both = await refused(env, 'PUT', `${csrs}/${name}/approval`, { ...created.body, status: { conditions: [approved, { type: 'Denied', status: 'True' }] } });
  assert.equal(both.code, 422);
  assert.equal(both.message, `CertificateSigningRequest.certificates.k8s.io "${name}" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`);
  const ok = await call(env, 'PUT', `${csrs}/${name}/approval`, { ...created.body, spec: { ...spec, signerName: 'example.com/other' }, status: { conditions: [approved] } });
  assert.ok(ok.ok);
  assert.equal((ok.body.spec as Json).signerName, 'example.com/signer', 'the approval keeps the spec');
  const condition = ((ok.body.status as Json).conditions as Json[])[0]!;
  assert.deepEqual(Object.keys(condition).sort(), ['lastTransitionTime', 'lastUpdateTime', 'message', 'reason', 'status', 'type']);
});

e2eTest('deployments/scale: server-side apply owns spec.replicas with subresource scale; another owner is a conflict unless forced', { needs: [Capability.ScaleApply] }, async (env) => {
  const deps = `/apis/apps/v1/namespaces/${env.namespace}/deployments`;
  await must(env, 'POST', deps, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, 'application/json', [['fieldManager', 'creator']]);
  const scale = (replicas: number): string => JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas } });
  const conflict = await refused(env, 'PATCH', `${deps}/web/scale`, scale(5), 'application/apply-patch+yaml', [['fieldManager', 'scaler']]);
  assert.equal(conflict.code, 409);
  // The owners are shown as the Scale sees them: in autoscaling/v1.
  assert.equal(conflict.message, 'Apply failed with 1 conflict: conflict with "creator" using autoscaling/v1: .spec.replicas');
  const forced = await call(env, 'PATCH', `${deps}/web/scale`, scale(5), 'application/apply-patch+yaml', [['fieldManager', 'scaler'], ['force', 'true']]);
  assert.ok(forced.ok);
  assert.deepEqual(forced.body.spec, { replicas: 5 });
  const dep = await call(env, 'GET', `${deps}/web`);
  assert.ok(dep.ok);
  const meta = dep.body.metadata as Json;
  const scaler = (meta.managedFields as Json[]).find((m) => m.manager === 'scaler')!;
  assert.deepEqual([scaler.operation, scaler.subresource, scaler.fieldsV1], ['Apply', 'scale', { 'f:spec': { 'f:replicas': {} } }]);
  assert.equal(meta.generation, 2);
});
