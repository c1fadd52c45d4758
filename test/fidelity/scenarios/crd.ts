/**
 * CustomResourceDefinitions and custom resources: the CRD's own answers (status conditions, accepted
 * names), every verb on its resources, status and scale subresources, printer columns, what custom
 * resources refuse (strategic merge patch), and deletion of the CRD.
 */
import type { Scenario, Step } from '../scenario.ts';
import { widget, widgetCrd, widgets } from './objects.ts';

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crdName = 'widgets.{{r}}.fidelity.kubeloom.test';

/** Creates the widget CRD and waits until its resource is served. */
function installWidgets(options: Parameters<typeof widgetCrd>[0] = {}, keep: 'status' | 'all' = 'status'): Step[] {
  return [
    { req: `POST ${crds}`, body: widgetCrd(options), keep },
    { req: `GET ${widgets}`, until: 200, keep: 'status' },
  ];
}

const cleanup: Step[] = [{ req: `DELETE ${crds}/${crdName}` }];

export const crd: Scenario[] = [
  {
    id: 'crd/create-and-status',
    title: 'CRD create: the answer, then its status (Established, NamesAccepted, acceptedNames, storedVersions)',
    steps: [
      { req: `POST ${crds}`, body: widgetCrd(), pick: ['metadata.name', 'metadata.generation', 'spec', 'status'] },
      { req: `GET ${widgets}`, until: 200, keep: 'status' },
      { req: `GET ${crds}/${crdName}`, pick: ['metadata.generation', 'status'] },
    ],
    cleanup,
  },
  {
    id: 'crd/invalid-definitions',
    title: 'CRD validation: name not plural.group, no versions, two storage versions, bad scope',
    namespace: false,
    steps: [
      { req: `POST ${crds}`, body: { ...widgetCrd(), metadata: { name: 'wrong.{{r}}.fidelity.kubeloom.test' } } },
      { req: `POST ${crds}`, body: { ...widgetCrd(), spec: { ...(widgetCrd().spec as object), versions: [] } } },
      { req: `POST ${crds}`, body: { ...widgetCrd(), spec: { ...(widgetCrd().spec as object), scope: 'Galaxy' } } },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-verbs',
    title: 'Custom resource: create, get, list, update, merge and JSON patch, delete (Status answer), get',
    steps: [
      ...installWidgets(),
      { req: `POST ${widgets}`, body: widget('w1'), save: { rv: 'metadata.resourceVersion' } },
      { req: `GET ${widgets}/w1` },
      { req: `GET ${widgets}`, pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name', 'items.*.kind', 'items.*.apiVersion'] },
      { req: `PUT ${widgets}/w1`, body: { ...widget('w1', { size: 4 }), metadata: { name: 'w1', resourceVersion: '{{rv}}' } }, pick: ['metadata.generation', 'spec'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { spec: { color: 'red' } }, pick: ['metadata.generation', 'spec'] },
      { req: `PATCH ${widgets}/w1`, type: 'jsonpatch', body: [{ op: 'replace', path: '/spec/size', value: 5 }], pick: ['metadata.generation', 'spec'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { metadata: { labels: { a: 'b' } } }, pick: ['metadata.generation'] },
      { req: `DELETE ${widgets}/w1` },
      { req: `GET ${widgets}/w1` },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-strategic-patch-refused',
    title: 'Custom resource: strategic merge patch is 415, an unknown version 404, a wrong kind 422',
    steps: [
      ...installWidgets(),
      { req: `POST ${widgets}`, body: widget('w1'), keep: 'status' },
      { req: `PATCH ${widgets}/w1`, type: 'strategic', body: { spec: { size: 1 } } },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v9/namespaces/{{ns}}/widgets' },
      { req: `POST ${widgets}`, body: { ...widget('w2'), kind: 'Gadget' } },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-status-subresource',
    title: 'Custom resource with /status: status ignored on create and main-resource writes, written via /status without a generation bump',
    steps: [
      ...installWidgets({ status: true }),
      { req: `POST ${widgets}`, body: { ...widget('w1'), status: { phase: 'Set' } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${widgets}/w1/status`, type: 'merge', body: { status: { phase: 'Ready' } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { status: { phase: 'Other' } }, pick: ['metadata.generation', 'status'] },
      { req: `GET ${widgets}/w1/status`, pick: ['kind', 'status'] },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-no-status-subresource',
    title: 'Custom resource without /status: status is written by the main resource, /status is 404',
    steps: [
      ...installWidgets(),
      { req: `POST ${widgets}`, body: { ...widget('w1'), status: { phase: 'Set' } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { status: { phase: 'Other' } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${widgets}/w1/status`, type: 'merge', body: { status: { phase: 'Ready' } } },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-scale-subresource',
    title: 'Custom resource with /scale: get the Scale, patch replicas',
    steps: [
      ...installWidgets({ status: true, scale: true }),
      { req: `POST ${widgets}`, body: widget('w1', { replicas: 2 }), keep: 'status' },
      { req: `PATCH ${widgets}/w1/status`, type: 'merge', body: { status: { replicas: 2, selector: 'app=w1' } }, keep: 'status' },
      { req: `GET ${widgets}/w1/scale` },
      { req: `PATCH ${widgets}/w1/scale`, type: 'merge', body: { spec: { replicas: 5 } }, pick: ['apiVersion', 'kind', 'spec', 'status'] },
      { req: `GET ${widgets}/w1`, pick: ['spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-table-columns',
    title: 'Custom resource Table: additional printer columns, and kubectl get',
    steps: [
      ...installWidgets({ columns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }, { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 }, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }] }),
      { req: `POST ${widgets}`, body: widget('w1', { size: 3, color: 'blue' }), keep: 'status' },
      { req: `GET ${widgets}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', pick: ['kind', 'apiVersion', 'columnDefinitions', 'rows.*.cells'] },
      { req: `GET ${widgets}/w1`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', pick: ['columnDefinitions', 'rows.*.cells', 'rows.*.object'] },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1', until: 200, keep: 'status' },
      { kubectl: 'get widgets.{{r}}.fidelity.kubeloom.test' },
      { kubectl: 'get widgets.{{r}}.fidelity.kubeloom.test -o wide' },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-cluster-scoped',
    title: 'Cluster-scoped custom resource: create and get without a namespace, namespaced path is 404',
    namespace: false,
    steps: [
      { req: `POST ${crds}`, body: widgetCrd({ scope: 'Cluster' }), keep: 'status' },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1/widgets', until: 200, keep: 'status' },
      { req: 'POST /apis/{{r}}.fidelity.kubeloom.test/v1/widgets', body: widget('fid-w-{{r}}'), pick: ['metadata', 'spec'] },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/default/widgets/fid-w-{{r}}' },
      { req: 'DELETE /apis/{{r}}.fidelity.kubeloom.test/v1/widgets/fid-w-{{r}}', pick: ['kind', 'status', 'details'] },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-watch',
    title: 'Custom resource watch: ADDED, MODIFIED, DELETED',
    steps: [
      ...installWidgets(),
      { watch: 'w', req: `GET ${widgets}?watch=true&timeoutSeconds=30` },
      { req: `POST ${widgets}`, body: widget('w1'), keep: 'status' },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { spec: { size: 9 } }, keep: 'status' },
      { req: `DELETE ${widgets}/w1`, keep: 'status' },
      { events: 'w', count: 3 },
    ],
    cleanup,
  },
  {
    id: 'crd/delete-crd-removes-resources',
    title: 'Deleting a CRD answers with it (Terminating) and its resources stop being served',
    steps: [
      ...installWidgets(),
      { req: `POST ${widgets}`, body: widget('w1'), keep: 'status' },
      { req: `DELETE ${crds}/${crdName}`, pick: ['kind', 'metadata.name', 'metadata.finalizers', 'status.conditions.*.type'] },
      { req: `GET ${crds}/${crdName}`, until: 404 },
      { req: `GET ${widgets}`, until: 404 },
    ],
    cleanup,
  },
  {
    id: 'crd/cr-finalizer',
    title: 'Custom resource with a finalizer: delete marks it, removing the finalizer deletes it',
    steps: [
      ...installWidgets(),
      { req: `POST ${widgets}`, body: widget('w1', { size: 1 }, { finalizers: ['fidelity.kubeloom.test/hold'] }), keep: 'status' },
      { req: `DELETE ${widgets}/w1`, pick: ['metadata.finalizers', 'metadata.deletionGracePeriodSeconds', 'metadata.deletionTimestamp'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { spec: { size: 2 } }, pick: ['metadata.generation', 'spec'] },
      { req: `PATCH ${widgets}/w1`, type: 'merge', body: { metadata: { finalizers: null } }, pick: ['metadata.name', 'metadata.finalizers'] },
      { req: `GET ${widgets}/w1` },
    ],
    cleanup: [{ req: `PATCH ${widgets}/w1`, type: 'merge', body: { metadata: { finalizers: null } } }, ...cleanup],
  },
];
