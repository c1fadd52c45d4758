import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Secret } from '../api/core/v1.ts';
import { startApiServer, type ApiServer } from '../apiserver/index.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { RestClient } from '../rest/client.ts';
import { eventually } from '../testing/eventually.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { CertRotator, CertRotatorError, WebhookType, injectCaBundle, type CertRotatorOptions } from './cert-rotator.ts';

const day = 24 * 3600 * 1000;
// The rotator's loop is back in its sleep: its check (real HTTP to the server) is done.
const sleeping = (clock: FakeClock): Promise<boolean> => eventually(() => clock.hasWaiters(), { timeoutMs: 20_000 });
const quiet = { debug() {}, info() {}, error() {} };
type Obj = Record<string, unknown>;

async function setup(t: import('node:test').TestContext): Promise<{ server: ApiServer; rest: RestClient; certDir: string; clock: FakeClock; secrets: ResourceClient<Secret>; get: (resource: string, name: string) => Promise<Obj> }> {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  const certDir = await mkdtemp(path.join(tmpdir(), 'kubeloom-rotator-'));
  t.after(async () => {
    await rest.close();
    await server.stop();
    await rm(certDir, { recursive: true, force: true });
  });
  const post = async (p: string, body: unknown): Promise<void> => {
    const r = await fetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(r.status, 201, await r.text());
  };
  const hook = (name: string) => ({ name, clientConfig: { url: 'https://127.0.0.1:9443/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] });
  await post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { metadata: { name: 'rbac-lane-validating' }, webhooks: [hook('a.rbac-lane.io'), hook('b.rbac-lane.io')] });
  await post('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { metadata: { name: 'rbac-lane-mutating' }, webhooks: [hook('m.rbac-lane.io')] });
  await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name: 'widgets.rbac-lane.io' },
    spec: {
      group: 'rbac-lane.io',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://127.0.0.1:9443/convert' }, conversionReviewVersions: ['v1'] } },
    },
  });
  const secrets = new ResourceClient<Secret>(rest, { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, namespace: 'default' });
  const get = async (resource: string, name: string): Promise<Obj> => {
    const group = resource === 'customresourcedefinitions' ? 'apiextensions.k8s.io' : 'admissionregistration.k8s.io';
    return (await (await fetch(`${server.url}/apis/${group}/v1/${resource}/${name}`)).json()) as Obj;
  };
  return { server, rest, certDir, clock: new FakeClock(Date.now()), secrets, get };
}

const webhooks = [
  { name: 'rbac-lane-validating', type: WebhookType.Validating },
  { name: 'rbac-lane-mutating', type: WebhookType.Mutating },
  { name: 'widgets.rbac-lane.io', type: WebhookType.CRDConversion },
];

function options(certDir: string, clock: FakeClock, extra: Partial<CertRotatorOptions> = {}): CertRotatorOptions {
  return { secret: { namespace: 'default', name: 'webhook-server-cert' }, certDir, dnsName: 'webhook-service.rbac-lane.svc', extraDnsNames: ['127.0.0.1'], webhooks, clock, logger: quiet, ...extra };
}

const bundles = async (get: (resource: string, name: string) => Promise<Obj>): Promise<unknown[]> => [
  ...((await get('validatingwebhookconfigurations', 'rbac-lane-validating')).webhooks as { clientConfig: { caBundle?: string } }[]).map((w) => w.clientConfig.caBundle),
  ...((await get('mutatingwebhookconfigurations', 'rbac-lane-mutating')).webhooks as { clientConfig: { caBundle?: string } }[]).map((w) => w.clientConfig.caBundle),
  ((await get('customresourcedefinitions', 'widgets.rbac-lane.io')).spec as { conversion: { webhook: { clientConfig: { caBundle?: string } } } }).conversion.webhook.clientConfig.caBundle,
];

test('CertRotator creates the Secret, writes the files, injects the caBundle everywhere, and is ready only once every named object has it', async (t) => {
  const { rest, certDir, clock, secrets, get, server } = await setup(t);
  const rotator = new CertRotator(rest, options(certDir, clock, { webhooks: [...webhooks, { name: 'rbac-lane-later', type: WebhookType.Mutating }] }));
  assert.match(String(rotator.readyChecker()()), /certificates not written yet/);
  const stop = new AbortController();
  const running = rotator.start(stop.signal);
  assert.equal(await rotator.waitReady(stop.signal), true);
  const secret = await secrets.get('webhook-server-cert');
  const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  assert.deepEqual(Object.keys(data).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
  assert.equal(await readFile(path.join(certDir, 'tls.crt'), 'utf8'), data['tls.crt']);
  assert.equal(await readFile(path.join(certDir, 'tls.key'), 'utf8'), data['tls.key']);
  assert.equal(await readFile(path.join(certDir, 'ca.crt'), 'utf8'), data['ca.crt']);
  const leaf = new X509Certificate(data['tls.crt']!);
  assert.ok(leaf.verify(new X509Certificate(data['ca.crt']!).publicKey));
  assert.ok(leaf.checkHost('webhook-service.rbac-lane.svc') !== undefined && leaf.checkIP('127.0.0.1') !== undefined);
  // Valid one year from an hour back (cert-controller's defaults).
  assert.equal(Date.parse(leaf.validTo) - Date.parse(leaf.validFrom), 365 * day + 3600_000);
  const caBundle = Buffer.from(data['ca.crt']!).toString('base64');
  assert.deepEqual(await bundles(get), [caBundle, caBundle, caBundle, caBundle]);
  assert.match(String(rotator.readyChecker()()), /caBundle not injected yet into Mutating rbac-lane-later/);
  // The missing configuration appears: the next retry (5 s) injects it and the rotator is ready.
  await fetch(`${server.url}/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'rbac-lane-later' }, webhooks: [{ name: 'l.rbac-lane.io', clientConfig: { url: 'https://127.0.0.1:9443/l' }, sideEffects: 'None', admissionReviewVersions: ['v1'] }] }),
  });
  await sleeping(clock);
  assert.equal(clock.nextTimerIn(), 5_000);
  await clock.step(5_000);
  await sleeping(clock);
  assert.equal(rotator.readyChecker()(), undefined);
  assert.equal(clock.nextTimerIn(), 12 * 3600_000 - 5_000);
  assert.equal(((await get('mutatingwebhookconfigurations', 'rbac-lane-later')).webhooks as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle, caBundle);
  stop.abort();
  await running;
});

test('CertRotator renews the serving certificate on the first check within the 90-day lookahead, and the CA (re-injecting it) likewise', async (t) => {
  const { rest, certDir, clock, secrets, get } = await setup(t);
  const rotator = new CertRotator(rest, options(certDir, clock, { rotationCheckFrequencyMs: 7 * day, caCertDurationMs: 400 * day }));
  const stop = new AbortController();
  const running = rotator.start(stop.signal);
  await rotator.waitReady(stop.signal);
  const first = rotator.current()!;
  const secretCert = async (): Promise<string> => Buffer.from((await secrets.get('webhook-server-cert')).data!['tls.crt']!, 'base64').toString();
  const renewals: string[] = [];
  let previous = first;
  for (let week = 1; week <= 46; week++) {
    await sleeping(clock);
    await clock.step(7 * day);
    await sleeping(clock);
    const now = rotator.current()!;
    if (now.caCert !== previous.caCert) renewals.push(`day ${week * 7}: ca`);
    else if (now.cert !== previous.cert) renewals.push(`day ${week * 7}: serving`);
    previous = now;
  }
  // Serving: 365 days valid, renewed once fewer than 90 remain (after day 275): the check of day 280.
  // CA: 400 days valid, renewed after day 310: the check of day 315, with a new serving certificate.
  assert.deepEqual(renewals, ['day 280: serving', 'day 315: ca']);
  assert.equal(await secretCert(), previous.cert);
  assert.equal(await readFile(path.join(certDir, 'tls.crt'), 'utf8'), previous.cert);
  const caBundle = Buffer.from(previous.caCert).toString('base64');
  assert.deepEqual(await bundles(get), [caBundle, caBundle, caBundle, caBundle]);
  assert.notEqual(previous.caCert, first.caCert);
  stop.abort();
  await running;
});

test('A restarted CertRotator reuses the certificates of the Secret', async (t) => {
  const { rest, certDir, clock } = await setup(t);
  const first = new CertRotator(rest, options(certDir, clock));
  assert.equal(await first.refreshCertIfNeeded(), 'ca');
  const otherDir = path.join(certDir, 'restarted');
  const second = new CertRotator(rest, options(otherDir, clock));
  assert.equal(await second.refreshCertIfNeeded(), 'none');
  assert.deepEqual(second.current(), first.current());
  assert.equal(await readFile(path.join(otherDir, 'tls.crt'), 'utf8'), first.current()!.cert);
  // A new name the certificate does not cover: a new serving certificate from the same CA.
  const third = new CertRotator(rest, options(otherDir, clock, { extraDnsNames: ['webhook.example.com'] }));
  assert.equal(await third.refreshCertIfNeeded(), 'serving');
  assert.equal(third.current()!.caCert, first.current()!.caCert);
});

test('injectCaBundle sets every webhook’s caBundle, reports changes, and refuses a CRD without a conversion clientConfig', () => {
  const config: Obj = { webhooks: [{ name: 'a', clientConfig: { service: { name: 's', namespace: 'n' } } }, { name: 'b' }] };
  assert.equal(injectCaBundle(config, { name: 'x', type: WebhookType.Validating }, 'Q0E='), true);
  assert.deepEqual(config.webhooks, [
    { name: 'a', clientConfig: { service: { name: 's', namespace: 'n' }, caBundle: 'Q0E=' } },
    { name: 'b', clientConfig: { caBundle: 'Q0E=' } },
  ]);
  assert.equal(injectCaBundle(config, { name: 'x', type: WebhookType.Validating }, 'Q0E='), false);
  assert.throws(() => injectCaBundle({ spec: { conversion: { strategy: 'None' } } }, { name: 'widgets.example.com', type: WebhookType.CRDConversion }, 'Q0E='), (err: unknown) => {
    assert.ok(err instanceof CertRotatorError);
    assert.equal(err.code, 'ERR_CERT_ROTATOR');
    assert.equal(err.message, '`conversion.webhook.clientConfig` field not found in CustomResourceDefinition widgets.example.com');
    return true;
  });
});
