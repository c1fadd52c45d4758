/**
 * Resources of the whole built-in API that the embedded server once lacked: their discovery, and the
 * defaults, validation, immutable fields and Tables of StorageClasses and RuntimeClasses.
 */
import type { Scenario } from '../scenario.ts';

const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const storageClasses = '/apis/storage.k8s.io/v1/storageclasses';
const runtimeClasses = '/apis/node.k8s.io/v1/runtimeclasses';

export const builtinApi: Scenario[] = [
  {
    id: 'builtin/discovery-storage-node-discovery',
    title: 'Discovery of storage.k8s.io/v1, node.k8s.io/v1, discovery.k8s.io/v1 and the core bindings and componentstatuses entries',
    namespace: false,
    steps: [
      { req: 'GET /apis/storage.k8s.io/v1', pick: ['kind', 'groupVersion', 'resources.[name=storageclasses]', 'resources.[name=csidrivers]', 'resources.[name=csinodes]', 'resources.[name=volumeattachments]', 'resources.[name=volumeattachments/status]'] },
      { req: 'GET /apis/node.k8s.io/v1' },
      { req: 'GET /apis/discovery.k8s.io/v1' },
      { req: 'GET /api/v1', pick: ['resources.[name=bindings]', 'resources.[name=componentstatuses]'] },
    ],
  },
  {
    id: 'builtin/storageclass-lifecycle',
    title: 'StorageClass: defaults, Table, immutable parameters and provisioner, invalid binding mode, delete',
    namespace: false,
    steps: [
      { req: `POST ${storageClasses}`, body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fid-{{r}}' }, provisioner: 'example.com/disk', parameters: { type: 'ssd' } } },
      { req: `GET ${storageClasses}/fid-{{r}}`, accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: `PATCH ${storageClasses}/fid-{{r}}`, type: 'merge', body: { parameters: { type: 'hdd' }, provisioner: 'example.com/other' } },
      { req: `POST ${storageClasses}`, body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fid-{{r}}-bad' }, provisioner: 'example.com/disk', volumeBindingMode: 'Later', reclaimPolicy: 'Keep' } },
      { req: `DELETE ${storageClasses}/fid-{{r}}`, keep: 'status' },
    ],
    cleanup: [{ req: `DELETE ${storageClasses}/fid-{{r}}` }],
  },
  {
    id: 'builtin/runtimeclass-handler',
    title: 'RuntimeClass: handler required, immutable; Table',
    namespace: false,
    steps: [
      { req: `POST ${runtimeClasses}`, body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'fid-{{r}}' }, handler: 'runc' } },
      { req: `GET ${runtimeClasses}/fid-{{r}}`, accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: `PATCH ${runtimeClasses}/fid-{{r}}`, type: 'merge', body: { handler: 'kata' } },
      { req: `POST ${runtimeClasses}`, body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'fid-{{r}}-bad' }, handler: '' } },
      { req: `DELETE ${runtimeClasses}/fid-{{r}}`, keep: 'status' },
    ],
    cleanup: [{ req: `DELETE ${runtimeClasses}/fid-{{r}}` }],
  },
];
