/**
 * Where and how kube-apiserver keeps objects in etcd, so that it and the embedded server read each other's
 * data: the key of an object and the encoding of its value.
 *
 * Keys (k8s.io/apiserver/pkg/registry/generic/registry/store.go NamespaceKeyFunc / NoNamespaceKeyFunc under
 * the resource prefix of k8s.io/apiserver/pkg/server/storage/storage_factory.go ResourcePrefix):
 * `/registry/<prefix>/<namespace>/<name>`, cluster-scoped `/registry/<prefix>/<name>`, where the prefix is
 * - for kube-apiserver's own built-in resources, the resource name without its group (`deployments`,
 *   `clusterroles`, `leases`), except the compiled-in ones of SpecialDefaultResourcePrefixes
 *   (pkg/kubeapiserver/default_storage_factory_builder.go): replicationcontrollers → `controllers`,
 *   endpoints → `services/endpoints`, nodes → `minions`, services → `services/specs`, ingresses →
 *   `ingress`, podsecuritypolicies → `podsecuritypolicy`; events.k8s.io events live with core events
 *   (AddCohabitatingResources, resources.ts storageKey);
 * - for the servers chained behind it, `<group>/<resource>`: apiextensions-apiserver's CRDs and every custom
 *   resource (apiextensions-apiserver/pkg/apiserver/customresource_handler.go: `crd.Spec.Group + "/" +
 *   crd.Status.AcceptedNames.Plural`) and kube-aggregator's APIServices (their storage factories use
 *   apiserver/pkg/server/options/etcd.go's `resource.Group + "/" + resource.Resource`).
 *
 * Values (apiserver/pkg/storage/storagebackend, storage media type `application/vnd.kubernetes.protobuf`):
 * built-in kinds as the `k8s\0` + runtime.Unknown protobuf envelope, in their storage version; custom
 * resources, CRDs and APIServices as JSON (apiextensions and apiregistration force JSON: they are served by
 * generic servers without protobuf). `metadata.resourceVersion` is never stored
 * (storage/etcd3/store.go: `versioner.PrepareObjectForStorage`); a read takes it from the key's mod revision.
 */
import { decodeKubernetesProtobuf, encodeKubernetesProtobuf } from '../protobuf.ts';
import { ResourceRegistry, storageKey } from '../resources.ts';
import { structOfKind } from '../schema/scheme.ts';
import { decodeTyped } from '../schema/typed-json.ts';
import { crdToV1 } from './crd-storage-version.ts';

type Obj = Record<string, unknown>;

/** kube-apiserver's `--etcd-prefix` default (apiserver/pkg/server/options/etcd.go: DefaultEtcdPathPrefix). */
export const defaultEtcdPrefix = '/registry';

// SpecialDefaultResourcePrefixes (pkg/kubeapiserver/default_storage_factory_builder.go), by storage key.
const specialPrefixes: Readonly<Record<string, string>> = {
  replicationcontrollers: 'controllers',
  endpoints: 'services/endpoints',
  nodes: 'minions',
  services: 'services/specs',
  'ingresses.networking.k8s.io': 'ingress',
  'ingresses.extensions': 'ingress',
  'podsecuritypolicies.policy': 'podsecuritypolicy',
};

// Groups served by a generic server of the chain (their prefix keeps the group; their values are JSON).
const chainedGroups = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

interface Tables {
  /** etcd prefix (without `/registry/`) → storage key, for the built-in resources and the special prefixes. */
  byPrefix: Map<string, string>;
  /** The special prefixes that contain a slash, longest first. */
  nested: Array<[string, string]>;
  registry: ResourceRegistry;
}
let tables: Tables | undefined;

function builtinTables(): Tables {
  if (tables !== undefined) return tables;
  const registry = new ResourceRegistry();
  const byPrefix = new Map<string, string>();
  for (const r of registry.all()) {
    if (chainedGroups.has(r.group)) continue;
    const store = storageKey(r.group, r.resource);
    byPrefix.set(specialPrefixes[store] ?? r.resource, store);
  }
  // A served resource wins a shared prefix (ingresses: networking.k8s.io over extensions).
  for (const [store, prefix] of Object.entries(specialPrefixes)) if (!byPrefix.has(prefix)) byPrefix.set(prefix, store);
  const nested = [...byPrefix].filter(([p]) => p.includes('/'));
  tables = { byPrefix, nested, registry };
  return tables;
}

function splitStore(store: string): { resource: string; group: string } {
  const i = store.indexOf('.');
  return i < 0 ? { resource: store, group: '' } : { resource: store.slice(0, i), group: store.slice(i + 1) };
}

/** The etcd key of an object: `prefix` (e.g. `/registry`), the resource's prefix, then the storage key (`namespace/name` or `name`). */
export function etcdKey(prefix: string, store: string, key: string): string {
  return `${prefix}/${resourcePrefix(store)}/${key}`;
}

/** The resource prefix of a store (storage key), e.g. `deployments`, `services/specs`, `stable.example.com/widgets`. */
export function resourcePrefix(store: string): string {
  const special = specialPrefixes[store];
  if (special !== undefined) return special;
  const { resource, group } = splitStore(store);
  if (group === '' || (builtinTables().registry.isBuiltinGroup(group) && !chainedGroups.has(group))) return resource;
  return `${group}/${resource}`;
}

/**
 * The store and storage key of an etcd key under `prefix`, or undefined for keys the embedded server does
 * not serve (`/registry/ranges/serviceips`, `/registry/masterleases/...`).
 */
export function parseEtcdKey(prefix: string, etcdKeyText: string): { store: string; key: string } | undefined {
  if (!etcdKeyText.startsWith(`${prefix}/`)) return undefined;
  const rest = etcdKeyText.slice(prefix.length + 1);
  const t = builtinTables();
  for (const [p, store] of t.nested) if (rest.startsWith(`${p}/`)) return { store, key: rest.slice(p.length + 1) };
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const first = rest.slice(0, slash);
  if (first.includes('.')) {
    // `<group>/<resource>/...`: custom resources, CRDs, APIServices (a CRD's group always has a dot).
    const second = rest.indexOf('/', slash + 1);
    if (second < 0) return undefined;
    return { store: `${rest.slice(slash + 1, second)}.${first}`, key: rest.slice(second + 1) };
  }
  const store = t.byPrefix.get(first);
  return store === undefined ? undefined : { store, key: rest.slice(slash + 1) };
}

/** Whether objects of a store are written as protobuf (built-in kinds outside the chained servers' groups). */
function storesProtobuf(store: string, obj: Obj): boolean {
  const { group } = splitStore(store);
  if (chainedGroups.has(group)) return false;
  if (group !== '' && !builtinTables().registry.isBuiltinGroup(group)) return false;
  return typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' && structOfKind(obj.apiVersion, obj.kind) !== undefined;
}

/** The bytes kube-apiserver would store for an object: resourceVersion cleared, protobuf or JSON. */
export function encodeStored(store: string, obj: Obj): Uint8Array {
  const meta = obj.metadata as Obj | undefined;
  let bare = obj;
  if (meta !== undefined && 'resourceVersion' in meta) {
    const { resourceVersion: _rv, ...rest } = meta;
    bare = { ...obj, metadata: rest };
  }
  if (storesProtobuf(store, bare)) return encodeKubernetesProtobuf(bare);
  // encoding/json's Encoder, as the JSON serializer uses it, ends the document with a newline.
  return Buffer.from(`${JSON.stringify(bare)}\n`);
}

const magic = Buffer.from('k8s\0', 'latin1');

/**
 * An object from its stored bytes: protobuf decoded and written back as Go's JSON would write its struct
 * (zero values of omitempty fields dropped, struct field order), JSON parsed as it is. Throws for bytes of
 * neither kind, or of a kind outside the scheme.
 */
export function decodeStored(value: Uint8Array): Obj {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(magic)) {
    const raw = decodeKubernetesProtobuf(bytes);
    const s = structOfKind(raw.apiVersion as string, raw.kind as string)!;
    return decodeTyped(s, raw);
  }
  const v = JSON.parse(bytes.toString('utf8')) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('stored value is not a JSON object');
  return crdToV1(v as Obj);
}
