/**
 * PATCH in all its types: JSON patch (every op, a failed test), merge patch (null deletes), strategic
 * merge patch (merge keys, directives), and their error answers.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, deployment, pod } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const deps = '/apis/apps/v1/namespaces/{{ns}}/deployments';

export const patch: Scenario[] = [
  {
    id: 'patch/json-patch-ops',
    title: 'JSON patch: add, remove, replace, move, copy, test — managedFields follow',
    steps: [
      { req: `POST ${cms}`, body: configMap('p', { a: '1', b: '2' }), keep: 'status' },
      {
        req: `PATCH ${cms}/p`,
        type: 'jsonpatch',
        body: [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'add', path: '/data/c', value: '3' },
          { op: 'remove', path: '/data/b' },
          { op: 'replace', path: '/data/a', value: 'one' },
          { op: 'copy', from: '/data/a', path: '/data/d' },
          { op: 'move', from: '/data/c', path: '/data/e' },
          { op: 'add', path: '/metadata/labels', value: { x: 'y' } },
        ],
      },
    ],
  },
  {
    id: 'patch/json-patch-failures',
    title: 'JSON patch failures: failed test, missing path, bad op, not an array, not JSON',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: [{ op: 'test', path: '/data/a', value: 'nope' }] },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: [{ op: 'remove', path: '/data/zzz' }] },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: [{ op: 'replace', path: '/spec/x', value: 1 }] },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: [{ op: 'frobnicate', path: '/data/a' }] },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: { op: 'add' } },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: 'not json' },
      { req: `PATCH ${cms}/p`, type: 'jsonpatch', body: [{ op: 'replace', path: '/metadata/name', value: 'q' }] },
    ],
  },
  {
    id: 'patch/merge-patch',
    title: 'Merge patch: null deletes a key, lists are replaced, an invalid body is 400, a missing object 404',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { metadata: { labels: { a: 'b', c: 'd' } } }, pick: ['metadata.labels'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { metadata: { labels: { a: null } } }, pick: ['metadata.labels'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { spec: { template: { spec: { containers: [{ name: 'other', image: 'busybox' }] } } } }, pick: ['spec.template.spec.containers'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: '{"spec": ' },
      { req: `PATCH ${deps}/ghost`, type: 'merge', body: { spec: {} } },
    ],
  },
  {
    id: 'patch/strategic-merge-keys',
    title: 'Strategic merge patch: containers merged by name, env by name, $patch delete, $retainKeys, $deleteFromPrimitiveList',
    steps: [
      {
        req: `POST ${deps}`,
        body: deployment('web', 1, {
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] }, { name: 'side', image: 'busybox' }] } },
        }),
        keep: 'status',
      },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] } } } }, pick: ['spec.template.spec.containers'] },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } } }, pick: ['spec.template.spec.containers.*.name'] },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, pick: ['spec.strategy'] },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { metadata: { finalizers: ['a/b', 'c/d'] } }, pick: ['metadata.finalizers'] },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { metadata: { $deleteFromPrimitiveList$finalizers: ['a/b'] } }, pick: ['metadata.finalizers'] },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { metadata: { finalizers: null } }, pick: ['metadata.finalizers'] },
    ],
  },
  {
    id: 'patch/strategic-ports-and-volumes',
    title: 'Strategic merge patch on a pod: ports merged by containerPort, tolerations replaced (atomic list), unknown directive',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p', { spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }], tolerations: [{ key: 'a', operator: 'Exists' }] } }), keep: 'status' },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'strategic', body: { metadata: { labels: { x: '1' } }, spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, pick: ['metadata.labels', 'spec.tolerations'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'strategic', body: { $patch: 'frobnicate' } },
    ],
  },
  {
    id: 'patch/patch-types-refused',
    title: 'PATCH with an unknown content type is 415, with none is 415, on a collection is 405',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `PATCH ${cms}/p`, type: 'text/plain', body: '{}' },
      { req: `PATCH ${cms}/p`, type: 'application/json', body: {} },
      { req: `PATCH ${cms}`, type: 'merge', body: {} },
    ],
  },
  {
    id: 'patch/resource-version-in-patch',
    title: 'A patch carrying a stale resourceVersion conflicts; a matching one applies',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PATCH ${cms}/p`, type: 'merge', body: { metadata: { resourceVersion: '{{rv}}' }, data: { a: '2' } }, pick: ['data'] },
      { req: `PATCH ${cms}/p`, type: 'merge', body: { metadata: { resourceVersion: '{{rv}}' }, data: { a: '3' } } },
    ],
  },
  {
    id: 'patch/noop-keeps-resource-version',
    title: 'A patch that changes nothing keeps the resourceVersion and managedFields',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `PATCH ${cms}/p`, type: 'merge', body: { data: { a: '1' } }, pick: ['metadata.resourceVersion', 'metadata.managedFields'] },
      { req: `GET ${cms}/p`, pick: ['metadata.resourceVersion'] },
    ],
  },
  {
    id: 'patch/kubectl-patch',
    title: 'kubectl patch: strategic (default), merge, json; a patch that changes nothing',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { kubectl: `patch deployment web -p '{"spec":{"replicas":4}}'` },
      { kubectl: `patch deployment web --type=merge -p '{"metadata":{"labels":{"a":"b"}}}'` },
      { kubectl: `patch deployment web --type=json -p '[{"op":"remove","path":"/metadata/labels/a"}]'` },
      { kubectl: `patch deployment web -p '{"spec":{"replicas":4}}'` },
      { kubectl: `patch deployment web --type=json -p '[{"op":"test","path":"/spec/replicas","value":9}]'` },
      { kubectl: 'get deployment web -o json', pick: ['spec.replicas', 'metadata.labels', 'metadata.managedFields'] },
    ],
  },
];
