/**
 * The Namespace registry (pkg/registry/core/namespace/strategy.go and storage/storage.go): the `kubernetes`
 * finalizer added on create; a DELETE that only marks the namespace Terminating (deletionTimestamp, phase,
 * the GC finalizers the options ask for) while `spec.finalizers` remain; the update strategies of the main
 * resource (spec.finalizers and status kept), `/status` (spec kept, phase must match the deletionTimestamp)
 * and `/finalize` (status kept, spec.finalizers written); and the removal once a namespace is finalized.
 */
import type { StatusCause } from '../../../api/meta/v1.ts';
import { isObject, metaOf } from '../../object-meta.ts';
import type { ApiResource } from '../../resources.ts';
import { conflict, invalidCause } from '../../status.ts';
import type { StoredObject } from '../../storage.ts';
import type { RegistryContext } from '../context.ts';
import { foregroundDeletionFinalizer, orphanFinalizer, type DeleteOptions } from '../generic/garbage-collection-policy.ts';
import { stringList, storeDelete, type DeleteResult } from '../generic/deletion.ts';

type Obj = Record<string, unknown>;

/** v1.FinalizerKubernetes: the namespace controller's spec finalizer. */
export const kubernetesFinalizer = 'kubernetes';

/** The storage key of Namespaces. */
export const namespaceStore = 'namespaces';

/** The namespace's spec.finalizers. */
export function specFinalizers(ns: Obj): string[] {
  return stringList(isObject(ns.spec) ? ns.spec.finalizers : undefined);
}

/** PrepareForCreate: phase Active, and `kubernetes` appended to spec.finalizers when missing. */
export function prepareNamespaceForCreate(ns: Obj): void {
  const spec = isObject(ns.spec) ? ns.spec : {};
  const finalizers = stringList(spec.finalizers);
  if (!finalizers.includes(kubernetesFinalizer)) finalizers.push(kubernetesFinalizer);
  ns.spec = { ...spec, finalizers };
  ns.status = { phase: 'Active' };
}

/**
 * The update strategy of one namespace endpoint: the main resource keeps spec.finalizers and status,
 * `/finalize` keeps status (spec.finalizers is what it writes), `/status` keeps spec (done generically).
 */
export function prepareNamespaceForUpdate(subresource: string | undefined, old: Obj, next: Obj): void {
  if (subresource === 'status') return;
  const spec = isObject(next.spec) ? next.spec : {};
  const finalizers = subresource === 'finalize' ? spec.finalizers : isObject(old.spec) ? old.spec.finalizers : undefined;
  // An empty list is not stored (omitempty): a finalized namespace has `spec: {}`.
  next.spec = finalizers === undefined || (Array.isArray(finalizers) && finalizers.length === 0) ? withoutKey(spec, 'finalizers') : { ...spec, finalizers };
  if (old.status === undefined) delete next.status;
  else next.status = structuredClone(old.status);
}

function withoutKey(o: Obj, key: string): Obj {
  const { [key]: _drop, ...rest } = o;
  return rest;
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNameRegexError =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** validation.IsQualifiedName's messages for a finalizer name. */
function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return [`a qualified name ${qualifiedNameRegexError} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
      if (!dns1123Subdomain.test(prefix)) {
        errs.push(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        );
      }
    }
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!qualifiedNamePart.test(name)) errs.push(`name part ${qualifiedNameRegexError}`);
  return errs;
}

// kubernetes, orphan and foregroundDeletion may go unqualified (helper.IsStandardFinalizerName).
const standardFinalizers: ReadonlySet<string> = new Set([kubernetesFinalizer, orphanFinalizer, foregroundDeletionFinalizer]);

/** validateFinalizerName for each of spec.finalizers, fields named `spec.finalizers` or `spec.finalizers[i]`. */
function finalizerCauses(ns: Obj, indexed: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  specFinalizers(ns).forEach((f, i) => {
    const field = indexed ? `spec.finalizers[${i}]` : 'spec.finalizers';
    for (const msg of qualifiedNameErrors(f)) causes.push(invalidCause(field, f, msg));
    if (!f.includes('/') && !standardFinalizers.has(f)) causes.push(invalidCause(field, f, 'name is neither a standard finalizer name nor is it fully qualified'));
  });
  return causes;
}

/** ValidateNamespace's spec part, on create. */
export function validateNamespaceCreate(ns: Obj): StatusCause[] {
  return finalizerCauses(ns, false);
}

/** ValidateNamespaceStatusUpdate and ValidateNamespaceFinalizeUpdate (the main resource cannot change what they check). */
export function validateNamespaceUpdate(subresource: string | undefined, next: Obj): StatusCause[] {
  if (subresource === 'finalize') return finalizerCauses(next, true);
  if (subresource !== 'status') return [];
  const phase = isObject(next.status) ? next.status.phase : undefined;
  const deleting = metaOf(next).deletionTimestamp !== undefined;
  if (!deleting && phase !== 'Active') return [invalidCause('status.Phase', phase ?? '', "may only be 'Active' if `deletionTimestamp` is empty")];
  if (deleting && phase !== 'Terminating') return [invalidCause('status.Phase', phase ?? '', "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  return [];
}

/** ShouldDeleteNamespaceDuringUpdate's extra condition: nothing left in spec.finalizers. */
export function namespaceFinalized(ns: Obj): boolean {
  return specFinalizers(ns).length === 0;
}

// shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer: namespaces have no default policy.
function wantsOrphan(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  return has;
}

function wantsForeground(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return !options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return has;
}

/**
 * REST.Delete of a namespace: the first DELETE marks it Terminating (deletionTimestamp, phase, GC finalizers
 * per the options; no deletionGracePeriodSeconds) and answers with it; later ones answer with it unchanged
 * while spec.finalizers remain; once finalized, the generic deletion applies.
 */
export function namespaceDelete(scope: RegistryContext, r: ApiResource, existing: StoredObject, options: DeleteOptions, dryRun: boolean): DeleteResult {
  const meta = existing.obj.metadata as Obj;
  const name = String(meta.name);
  const pre = options.preconditions ?? {};
  if (pre.uid !== undefined && pre.uid !== meta.uid) throw conflict(r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`);
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(r, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`);
  }
  if (meta.deletionTimestamp === undefined) {
    const next = structuredClone(existing.obj);
    const m = metaOf(next);
    m.deletionTimestamp = scope.now();
    next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    const current = stringList(m.finalizers);
    const orphan = wantsOrphan(options, current.includes(orphanFinalizer));
    const foreground = wantsForeground(options, current.includes(foregroundDeletionFinalizer));
    const finalizers = current.filter((f) => (f !== orphanFinalizer || orphan) && (f !== foregroundDeletionFinalizer || foreground));
    if (orphan && !finalizers.includes(orphanFinalizer)) finalizers.push(orphanFinalizer);
    if (foreground && !finalizers.includes(foregroundDeletionFinalizer)) finalizers.push(foregroundDeletionFinalizer);
    if (finalizers.length !== current.length || finalizers.some((f, i) => f !== current[i])) {
      if (finalizers.length === 0) delete m.finalizers;
      else m.finalizers = finalizers;
    }
    if (dryRun) return { object: next, stored: undefined, pending: true };
    const stored = scope.storage.write(namespaceStore, existing.key, 'MODIFIED', next);
    return { object: stored.obj, stored, pending: true };
  }
  if (!namespaceFinalized(existing.obj)) return { object: existing.obj, stored: existing, pending: true };
  // The namespace's own preconditions were checked above; the generic ones would word them differently.
  return storeDelete(scope, r, existing, { ...options, preconditions: {} }, dryRun);
}
