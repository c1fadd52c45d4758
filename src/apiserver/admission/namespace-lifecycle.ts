/**
 * The NamespaceLifecycle admission plugin (staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/
 * lifecycle/admission.go), the first admission step of every create, update and delete: the immortal
 * namespaces cannot be deleted; a namespaced object cannot be created or updated in a namespace that
 * does not exist (the namespace's 404); nothing new can be created in a namespace being terminated (403
 * with the NamespaceTerminating cause). Access reviews are exempt.
 *
 * Upstream reads namespaces from an informer and falls back to a live lookup; this server reads its
 * storage, which is always current.
 */
import { StatusError, StatusReason, newStatus } from '../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { forbidden, notFound } from '../status.ts';
import type { Storage } from '../storage.ts';

/** The admission operations the plugin handles. */
export type LifecycleOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What the plugin is told about a request. */
export interface LifecycleAttributes {
  operation: LifecycleOperation;
  /** The resource's group and plural (a subresource's parent resource). */
  group: string;
  resource: string;
  /** The request's namespace ('' for cluster-scoped resources). */
  namespace: string;
  /** The name from the URL ('' on create). */
  name: string;
  /** The object being created or written, when there is one. */
  object?: Record<string, unknown> | undefined;
}

// The namespaces the plugin is registered with (metav1.NamespaceDefault, NamespaceSystem, NamespacePublic).
const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** The cause type upstream appends to the 403 (v1.NamespaceTerminatingCause). */
export const namespaceTerminatingCause = 'NamespaceTerminating';

// Reviews that are not stored and may be asked for in any namespace.
const accessReviews: ReadonlySet<string> = new Set(['authorization.k8s.io/localsubjectaccessreviews']);

/** extractResourceName: the URL's name, else the object's name or generateName, else "Unknown". */
function resourceName(a: LifecycleAttributes): string {
  if (a.name !== '') return a.name;
  const meta = isObject(a.object?.metadata) ? a.object.metadata : {};
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

/** Admits or refuses one request; throws the Status upstream answers with. */
export function admitNamespaceLifecycle(storage: Storage, a: LifecycleAttributes): void {
  const isNamespace = a.group === '' && a.resource === 'namespaces';
  if (isNamespace) {
    if (a.operation === 'DELETE' && immortalNamespaces.has(a.name)) throw forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
    return;
  }
  if (a.namespace === '' || a.operation === 'DELETE') return;
  if (accessReviews.has(`${a.group}/${a.resource}`)) return;
  const ns = storage.get('namespaces', a.namespace);
  if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
  if (a.operation !== 'CREATE') return;
  const phase = isObject(ns.obj.status) ? ns.obj.status.phase : undefined;
  if (phase !== 'Terminating') return;
  const name = resourceName(a);
  const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  throw new StatusError(
    newStatus(403, StatusReason.Forbidden, `${qualified} "${name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`, {
      name,
      ...(a.group === '' ? {} : { group: a.group }),
      kind: a.resource,
      causes: [{ reason: namespaceTerminatingCause, message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
    }),
  );
}
