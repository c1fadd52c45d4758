/**
 * The field-selector fields each resource supports, and their values on an object (each registry's
 * GetAttrs / SelectableFields upstream). Unsupported fields are rejected with 400, as kube-apiserver does.
 */
import type { ApiResource } from './resources.ts';
import { badRequest } from './status.ts';
import type { FieldSelector } from '../apimachinery/fields.ts';

type Obj = Record<string, unknown>;

function at(obj: Obj, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

// Extra fields per built-in resource ("group/resource"), beyond metadata.name and metadata.namespace.
const extraFields: Record<string, readonly string[]> = {
  '/pods': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  // pkg/apis/events/v1(beta1)/conversion.go AddFieldLabelConversionsForEvent: the same selectable fields
  // as core events (one stored object), under events.k8s.io's names.
  'events.k8s.io/events': [
    'reason',
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
    'reportingController',
    'type',
  ],
  '/secrets': ['type'],
  '/nodes': ['spec.unschedulable'],
  '/namespaces': ['status.phase'],
  '/replicationcontrollers': ['status.replicas'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
};

function supported(r: ApiResource): readonly string[] {
  const base = r.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'];
  const extra = r.custom ? r.selectableFields : (extraFields[`${r.group}/${r.resource}`] ?? []);
  return [...base, ...extra];
}

/** Rejects a field selector naming a field the resource cannot be selected by (400 BadRequest). */
export function validateFieldSelector(r: ApiResource, selector: FieldSelector): void {
  const fields = supported(r);
  for (const req of selector.requirements()) {
    // Cluster-scoped resources accept metadata.namespace too (it is always empty).
    if (req.field === 'metadata.namespace' || fields.includes(req.field)) continue;
    // Kinds with a field label conversion of their own word it so; the default conversion lists the metadata fields.
    if (r.custom) throw badRequest(`"${req.field}" is not a known field selector: only ${fields.map((f) => `"${f}"`).join(', ')}`);
    if (extraFields[`${r.group}/${r.resource}`] !== undefined) throw badRequest(`field label not supported: ${req.field}`);
    throw badRequest(`${JSON.stringify(req.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
}

/** The selectable field values of an object of resource `r`. */
export function fieldsOf(r: ApiResource, obj: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  // events.k8s.io events are selected on the stored core Event, their names mapped to its fields.
  const coreEvent = r.group === 'events.k8s.io' && obj.apiVersion === 'v1';
  for (const f of supported(r)) {
    if (f === 'source') out[f] = str(at(obj, ['source', 'component']));
    else if (coreEvent && f.startsWith('regarding.')) out[f] = str(at(obj, ['involvedObject', f.slice('regarding.'.length)]));
    else if (coreEvent && f === 'reportingController') out[f] = str(obj.reportingComponent);
    else out[f] = str(at(obj, f.split('.')));
  }
  out['metadata.namespace'] = str(at(obj, ['metadata', 'namespace']));
  return out;
}
