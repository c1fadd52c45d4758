import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import { defineCrd, s } from '../apiextensions/crd-builder.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { controllerRegistrations, webhookRegistrations } from '../builder/registrations.ts';
import { webhookManagedBy } from '../builder/webhook.ts';
import { kinds } from '../client/kinds.ts';
import { newManager } from '../manager/manager.ts';
import { generateConfig, generatedHeader, imageOverride, type ManifestInput } from './config.ts';
import { ManifestError } from './errors.ts';

const schema = s.object({ spec: s.object({ size: s.integer() }), status: s.object({ ready: s.boolean() }) });
const gizmos = defineCrd({
  group: 'ship.example.com',
  kind: 'Gizmo',
  plural: 'gizmos',
  scope: 'Namespaced',
  versions: [
    { name: 'v1', schema, subresources: { status: {} }, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] },
    { name: 'v2', schema },
  ],
});
const quiet = { debug() {}, info() {}, error() {} };

/** What `kubeloom manifests` reads from a project's setup(mgr): a manager that is never started. */
function input(options: { webhooks: boolean }): ManifestInput {
  const mgr = newManager({ host: 'https://127.0.0.1:1' }, { logger: quiet });
  controllerManagedBy(mgr).for(gizmos.resource('v1')).owns(kinds.appsV1.deployments).complete(() => undefined);
  if (options.webhooks) {
    webhookManagedBy(mgr).for(gizmos.resource('v1')).withDefaulter({ default() {} }).withValidator({}).complete();
    webhookManagedBy(mgr).for(gizmos.resource('v1')).withConversion({ hub: 'v1', spokes: { v2: { convertTo: (x) => x, convertFrom: (x) => x } } }).complete();
  }
  return { projectName: 'gizmo-op', crds: [gizmos.manifest], controllers: controllerRegistrations(mgr), webhooks: webhookRegistrations(mgr) };
}

test('the same project gives the same bytes, every file marked as generated, no YAML anchors', () => {
  const a = generateConfig(input({ webhooks: true }));
  const b = generateConfig(input({ webhooks: true }));
  assert.deepEqual([...a], [...b]);
  for (const [path, text] of a) {
    assert.ok(text.startsWith(`${generatedHeader}\n`), path);
    for (const doc of parseAllDocuments(text)) assert.deepEqual(doc.errors, [], path);
    assert.doesNotMatch(text, /[&*][a-z0-9]+\s*$/m, `${path} has no anchors`);
  }
});

test('the CRD comes from the declaration: every version, printer columns, subresources, defaulted names, and the conversion stanza when a conversion is registered', () => {
  const files = generateConfig(input({ webhooks: true }));
  const crd = parse(files.get('crd/bases/ship.example.com_gizmos.yaml')!) as Record<string, unknown> & { spec: Record<string, unknown> };
  assert.deepEqual(crd.spec['names'], { kind: 'Gizmo', plural: 'gizmos', listKind: 'GizmoList', singular: 'gizmo' });
  assert.deepEqual(crd.spec['versions'], gizmos.manifest.spec.versions);
  assert.deepEqual(crd.spec['conversion'], { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert' } }, conversionReviewVersions: ['v1'] } });
  assert.match(files.get('crd/kustomization.yaml')!, /configurations:\n- kustomizeconfig.yaml/);
  const plain = generateConfig(input({ webhooks: false }));
  assert.equal((parse(plain.get('crd/bases/ship.example.com_gizmos.yaml')!) as { spec: Record<string, unknown> }).spec['conversion'], undefined);
});

test('webhook configurations come from the registrations: paths, rules, sideEffects, failurePolicy, matchPolicy', () => {
  const files = generateConfig(input({ webhooks: true }));
  const [mutating, validating] = parseAllDocuments(files.get('webhook/manifests.yaml')!).map((d) => d.toJS() as { kind: string; metadata: { name: string }; webhooks: unknown[] });
  assert.equal(mutating!.kind, 'MutatingWebhookConfiguration');
  assert.deepEqual(mutating!.webhooks, [
    {
      admissionReviewVersions: ['v1'],
      clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/mutate-ship-example-com-v1-gizmo' } },
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      name: 'mgizmo-v1.kb.io',
      rules: [{ apiGroups: ['ship.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['gizmos'] }],
      sideEffects: 'None',
    },
  ]);
  assert.equal(validating!.kind, 'ValidatingWebhookConfiguration');
  assert.equal((validating!.webhooks[0] as { name: string }).name, 'vgizmo-v1.kb.io');
});

test('without webhooks there is no webhook/ or certmanager/ and the Deployment mounts no certificate', () => {
  const files = generateConfig(input({ webhooks: false }));
  assert.deepEqual([...files.keys()].filter((p) => p.startsWith('webhook/') || p.startsWith('certmanager/')), []);
  assert.doesNotMatch(files.get('manager/manager.yaml')!, /webhook-server-cert/);
  assert.doesNotMatch(files.get('default/kustomization.yaml')!, /\.\.\/webhook/);
  const withWebhooks = generateConfig(input({ webhooks: true }));
  assert.match(withWebhooks.get('manager/manager.yaml')!, /secretName: webhook-server-cert/);
});

test('role.yaml is a ClusterRole manager-role with the normalized rules (the interface of kubeloom rbac check)', () => {
  const role = parse(generateConfig(input({ webhooks: false })).get('rbac/role.yaml')!) as { apiVersion: string; kind: string; metadata: unknown; rules: unknown };
  assert.equal(role.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.equal(role.kind, 'ClusterRole');
  assert.deepEqual(role.metadata, { name: 'manager-role' });
  assert.deepEqual(role.rules, [
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['ship.example.com'], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['ship.example.com'], resources: ['gizmos/finalizers'], verbs: ['update'] },
    { apiGroups: ['ship.example.com'], resources: ['gizmos/status'], verbs: ['get', 'patch', 'update'] },
  ]);
});

test('a conversion for a kind no CRD declares, or a project name that is not a DNS label, is refused', () => {
  const bad = input({ webhooks: true });
  assert.throws(() => generateConfig({ ...bad, crds: [] }), (err: unknown) => err instanceof ManifestError && /no CRD under src\/api declares it/.test(err.message));
  assert.throws(() => generateConfig({ ...bad, projectName: 'Gizmo_Op' }), ManifestError);
});

test('--image becomes kustomize images: name and tag, a registry port, or a digest', () => {
  assert.deepEqual(imageOverride('controller:latest'), { name: 'controller', newName: 'controller', newTag: 'latest' });
  assert.deepEqual(imageOverride('registry.local:5000/team/op'), { name: 'controller', newName: 'registry.local:5000/team/op', newTag: 'latest' });
  assert.deepEqual(imageOverride('registry.local:5000/team/op:0.2.0'), { name: 'controller', newName: 'registry.local:5000/team/op', newTag: '0.2.0' });
  assert.deepEqual(imageOverride('ghcr.io/x/op@sha256:abc'), { name: 'controller', newName: 'ghcr.io/x/op', digest: 'sha256:abc' });
  const files = generateConfig({ ...input({ webhooks: false }), image: 'ghcr.io/x/op:1.0.0' });
  assert.match(files.get('manager/kustomization.yaml')!, /images:\n- name: controller\n {2}newName: ghcr.io\/x\/op\n {2}newTag: 1.0.0\n/);
});

test('secureMetrics adds kubebuilder’s metrics-auth ClusterRole bound to the manager and the metrics-reader ClusterRole; the leader-election Role may watch leases', () => {
  const plain = generateConfig(input({ webhooks: false }));
  assert.equal(plain.has('rbac/metrics_auth_role.yaml'), false);
  const files = generateConfig({ ...input({ webhooks: false }), secureMetrics: true });
  const doc = (p: string): Record<string, unknown> => parse(files.get(p)!) as Record<string, unknown>;
  assert.deepEqual(doc('rbac/metrics_auth_role.yaml').rules, [
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ]);
  const binding = doc('rbac/metrics_auth_role_binding.yaml');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-auth-role' });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'controller-manager', namespace: 'system' }]);
  assert.deepEqual(doc('rbac/metrics_reader_role.yaml').rules, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
  assert.deepEqual((doc('rbac/kustomization.yaml').resources as string[]).slice(-3), ['metrics_auth_role.yaml', 'metrics_auth_role_binding.yaml', 'metrics_reader_role.yaml']);
  // kubebuilder's leader_election_role.yaml verbs (the elector watches its Lease).
  assert.deepEqual((doc('rbac/leader_election_role.yaml').rules as Array<{ verbs: string[] }>)[0]!.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  // Metrics on :8443 behind an `https` Service port (kubebuilder's manager_metrics_patch.yaml and
  // metrics_service.yaml); plain HTTP on :8080 without secureMetrics.
  type Container = { args: string[]; ports: Array<{ containerPort: number; name: string }> };
  const container = (f: Map<string, string>): Container =>
    (parseAllDocuments(f.get('manager/manager.yaml')!)[1]!.toJS() as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers[0]!;
  const servicePorts = (f: Map<string, string>): unknown => (parse(f.get('default/metrics_service.yaml')!) as { spec: { ports: unknown } }).spec.ports;
  assert.ok(container(files).args.includes('--metrics-bind-address=:8443'));
  assert.deepEqual(container(files).ports.find((p) => p.name === 'metrics')?.containerPort, 8443);
  assert.deepEqual(servicePorts(files), [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 8443 }]);
  assert.ok(container(plain).args.includes('--metrics-bind-address=:8080'));
  assert.deepEqual(servicePorts(plain), [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }]);
});
