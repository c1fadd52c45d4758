/**
 * Validation details: a Service cluster IP outside the service range, CRD kind/listKind formats,
 * warnings for deprecated CRD versions, etcd's value size limit, non-numeric resourceVersions on reads
 * and writes, the field path of a forbidden pod spec update, a Secret's type change, and watches asked
 * for in YAML.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, pod, podSpec, secret, service, widgetCrd } from './objects.ts';

type Obj = Record<string, unknown>;

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crdName = 'widgets.{{r}}.fidelity.kubeloom.test';
const gadgets = '/apis/{{r}}.fidelity.kubeloom.test/{v}/namespaces/{{ns}}/gadgets';
const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function withNames(names: Obj): Obj {
  const crd = widgetCrd();
  return { ...crd, spec: { ...(crd.spec as Obj), names } };
}

/** A CRD `gadgets` with v1 deprecated (default warning), v2 deprecated with its own warning, v3 the storage version. */
const gadgetCrd: Obj = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.{{r}}.fidelity.kubeloom.test' },
  spec: {
    group: '{{r}}.fidelity.kubeloom.test',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      { name: 'v1', served: true, storage: false, deprecated: true, schema },
      { name: 'v2', served: true, storage: false, deprecated: true, deprecationWarning: 'gadgets v2 go away soon; move to v3', schema },
      { name: 'v3', served: true, storage: true, schema },
    ],
  },
};
const gadget = (v: string, name: string): Obj => ({ apiVersion: `{{r}}.fidelity.kubeloom.test/${v}`, kind: 'Gadget', metadata: { name }, spec: { size: 1 } });

export const validationDetails: Scenario[] = [
  {
    id: 'validation/service-cluster-ip-range',
    title: 'A Service clusterIP outside the service CIDR, or not an IP, is refused',
    masks: [/The range of valid IPs is [0-9a-f.:/]+/],
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('out', { clusterIP: '192.168.77.10' }) },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('dual', { clusterIP: '192.168.77.11', clusterIPs: ['192.168.77.11'] }) },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('bad', { clusterIP: 'not-an-ip' }) },
    ],
  },
  {
    id: 'crd/names-format',
    title: 'CRD names: kind and listKind must be DNS-1035 labels in any case, and differ',
    namespace: false,
    steps: [
      { req: `POST ${crds}`, body: withNames({ plural: 'widgets', singular: 'widget', kind: 'Wid_get', listKind: 'WidgetList' }) },
      { req: `POST ${crds}`, body: withNames({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'Widget List' }) },
      { req: `POST ${crds}`, body: withNames({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'Widget' }) },
      { req: `POST ${crds}`, body: withNames({ plural: 'widgets', singular: 'widget', kind: '9Widget', listKind: '9WidgetList' }) },
      { req: `POST ${crds}`, body: withNames({ plural: 'widgets', singular: 'widget', kind: 'widget', listKind: 'widgetList' }), pick: ['spec.names', 'status.acceptedNames'] },
    ],
    cleanup: [{ req: `DELETE ${crds}/${crdName}` }],
  },
  {
    id: 'crd/deprecated-version-warnings',
    title: 'Requests through a deprecated CRD version carry a Warning: the default text, or deprecationWarning',
    steps: [
      { req: `POST ${crds}`, body: gadgetCrd, keep: 'status' },
      { req: `GET ${gadgets.replace('{v}', 'v3')}`, until: 200, keep: 'status' },
      { req: `POST ${gadgets.replace('{v}', 'v1')}`, body: gadget('v1', 'g1'), pick: ['apiVersion', 'metadata.name'] },
      { req: `GET ${gadgets.replace('{v}', 'v2')}/g1`, pick: ['apiVersion'] },
      { req: `GET ${gadgets.replace('{v}', 'v2')}`, pick: ['apiVersion'] },
      { req: `GET ${gadgets.replace('{v}', 'v3')}/g1`, pick: ['apiVersion'] },
      { req: `PATCH ${gadgets.replace('{v}', 'v1')}/g1`, type: 'merge', body: { spec: { size: 2 } }, pick: ['spec'] },
      { req: `DELETE ${gadgets.replace('{v}', 'v2')}/g1`, pick: ['status'] },
    ],
    cleanup: [{ req: `DELETE ${crds}/gadgets.{{r}}.fidelity.kubeloom.test` }],
  },
  {
    id: 'limits/etcd-value-size',
    title: "An object under the 3 MiB request limit but over etcd's 1.5 MiB value limit",
    steps: [
      { req: `POST ${crds}`, body: widgetCrd(), keep: 'status' },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/{{ns}}/widgets', until: 200, keep: 'status' },
      { req: 'POST /apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/{{ns}}/widgets', body: { apiVersion: '{{r}}.fidelity.kubeloom.test/v1', kind: 'Widget', metadata: { name: 'big' }, spec: { blob: 'x'.repeat(1_700_000) } } },
      { req: 'POST /apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/{{ns}}/widgets', body: { apiVersion: '{{r}}.fidelity.kubeloom.test/v1', kind: 'Widget', metadata: { name: 'small' }, spec: { blob: 'x' } }, keep: 'status' },
      { req: 'PATCH /apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/{{ns}}/widgets/small', type: 'merge', body: { spec: { blob: 'y'.repeat(1_700_000) } } },
    ],
    cleanup: [{ req: `DELETE ${crds}/${crdName}` }],
  },
  {
    id: 'validation/non-numeric-resource-version',
    title: 'resourceVersion that is not a number on GET, PUT, merge patch and delete preconditions',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `GET ${cms}/a?resourceVersion=abc` },
      { req: `GET ${cms}/a?resourceVersion=-1` },
      { req: `PUT ${cms}/a`, body: { ...configMap('a'), metadata: { name: 'a', resourceVersion: 'abc' } } },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { resourceVersion: 'abc' } } },
      { req: `DELETE ${cms}/a`, body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: 'abc' } } },
    ],
  },
  {
    id: 'validation/pod-spec-update-forbidden',
    title: 'Updating an immutable pod spec field: the Forbidden field path and message',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p', { spec: podSpec({ tolerations: [{ key: 'a', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] }) }), keep: 'status' },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { restartPolicy: 'Never' } }, pick: ['code', 'reason', 'details.causes.*.field', 'details.causes.*.reason'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'jsonpatch', body: [{ op: 'add', path: '/spec/containers/0/ports', value: [{ containerPort: 80 }] }], pick: ['code', 'reason', 'details.causes.*.field', 'details.causes.*.reason'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'jsonpatch', body: [{ op: 'add', path: '/spec/containers/-', value: { name: 'two', image: 'nginx:1.25' } }] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { terminationGracePeriodSeconds: 5 } }, pick: ['code', 'reason', 'details.causes.*.field', 'details.causes.*.reason'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'jsonpatch', body: [{ op: 'replace', path: '/spec/containers/0/image', value: '' }] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { activeDeadlineSeconds: -5 } } },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { activeDeadlineSeconds: 100 } }, pick: ['spec.activeDeadlineSeconds'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { activeDeadlineSeconds: 200 } } },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'jsonpatch', body: [{ op: 'replace', path: '/spec/tolerations/0/value', value: 'y' }] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'jsonpatch', body: [{ op: 'add', path: '/spec/tolerations/-', value: { key: 'k', operator: 'Exists' } }], pick: ['spec.tolerations'] },
    ],
  },
  {
    id: 'validation/secret-type-change',
    title: "Changing a Secret's type (and an immutable Secret's or ConfigMap's data): the causes in upstream's order",
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: secret('s'), keep: 'status' },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/s', body: secret('s', { k: 'dmFsdWU=' }, 'kubernetes.io/tls') },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/s', body: secret('s', { 'tls.crt': 'eA==', 'tls.key': 'eA==' }, 'kubernetes.io/tls') },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/s', body: secret('s', {}, 'kubernetes.io/service-account-token') },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/s', body: secret('s', { k: 'dmFsdWU=' }, 'kubernetes.io/basic-auth') },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/s', body: secret('s', { k: 'dmFsdWU=' }, 'kubernetes.io/dockerconfigjson') },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { ...secret('im'), immutable: true }, keep: 'status' },
      { req: 'PUT /api/v1/namespaces/{{ns}}/secrets/im', body: { ...secret('im', { k: 'eA==' }, 'kubernetes.io/tls'), immutable: false } },
      { req: 'POST /api/v1/namespaces/{{ns}}/configmaps', body: { ...configMap('im'), immutable: true }, keep: 'status' },
      { req: 'PUT /api/v1/namespaces/{{ns}}/configmaps/im', body: { ...configMap('im', { a: '2' }), immutable: false, binaryData: { b: 'eA==' } } },
    ],
  },
  {
    id: 'negotiation/watch-media-types',
    title: 'Watches are served in JSON and protobuf only: YAML is 406',
    steps: [
      { watch: 'y', req: `GET ${cms}?watch=true&timeoutSeconds=1`, accept: 'application/yaml' },
      { watch: 'j', req: `GET ${cms}?watch=true&timeoutSeconds=1`, accept: 'application/json;stream=watch' },
      { watch: 'yj', req: `GET ${cms}?watch=true&timeoutSeconds=1`, accept: 'application/yaml, application/json;q=0.5' },
    ],
  },
];
