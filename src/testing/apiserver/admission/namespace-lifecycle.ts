/**
 * NamespaceLifecycle (`apiserver/pkg/admission/plugin/namespace/lifecycle`): no writes in a namespace
 * that does not exist, no new content in a Terminating one, and the immortal namespaces (default,
 * kube-system, kube-public) cannot be deleted.
 */
import { StatusError, newStatus, StatusReason } from '../../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { forbidden, notFound } from '../status.ts';
import type { AdmissionPlugin, PluginAttributes } from './plugins.ts';

// The namespaces NamespaceLifecycle never lets go.
const immortal: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

// Access reviews may name any namespace without revealing whether it exists.
const accessReviews: ReadonlySet<string> = new Set(['localsubjectaccessreviews', 'subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews']);

function check(a: PluginAttributes): void {
  const r = a.resource;
  if (r.group === '' && r.resource === 'namespaces') {
    if (a.operation === 'DELETE' && immortal.has(a.name)) throw forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
    return;
  }
  if (!r.namespaced || a.namespace === '' || a.operation === 'DELETE') return;
  if (r.group === 'authorization.k8s.io' && accessReviews.has(r.resource)) return;
  const ns = a.storage.get('namespaces', a.namespace);
  if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
  const status = isObject(ns.obj.status) ? ns.obj.status : {};
  if (a.operation === 'CREATE' && status.phase === 'Terminating') {
    const resource = a.subresource === '' ? r.resource : `${r.resource}/${a.subresource}`;
    const qualified = r.group === '' ? resource : `${resource}.${r.group}`;
    const why = `unable to create new content in namespace ${a.namespace} because it is being terminated`;
    throw new StatusError(
      newStatus(403, StatusReason.Forbidden, a.name === '' ? `${qualified} is forbidden: ${why}` : `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}`, {
        name: a.name,
        ...(r.group === '' ? {} : { group: r.group }),
        kind: resource,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      }),
    );
  }
}

/** The NamespaceLifecycle plugin (both phases check the same rules). */
export const namespaceLifecycle: AdmissionPlugin = { name: 'NamespaceLifecycle', admit: check };
