/**
 * Owner references (controller-runtime pkg/controller/controllerutil: SetControllerReference,
 * SetOwnerReference): the link `owns()` follows from an owned object back to its owner, and that the
 * garbage collector uses to delete owned objects with their owner.
 */
import type { OwnerReference } from '../api/meta/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { apiVersionOfKind, type ResourceKind } from './kinds.ts';

/** The object already has another controller (controllerutil.AlreadyOwnedError). */
export class AlreadyOwnedError extends KubeloomError {
  /** The existing controller reference. */
  readonly owner: OwnerReference;
  constructor(objectName: string, owner: OwnerReference) {
    super('ERR_ALREADY_OWNED', `Object ${objectName} is already owned by another ${owner.kind} controller ${owner.name}`);
    this.owner = owner;
  }
}

/** An owner reference to `owner` of kind `kind` (not a controller reference unless `controller`). */
export function ownerReferenceFor(kind: ResourceKind<unknown, unknown>, owner: KubeObject, options: { controller?: boolean; blockOwnerDeletion?: boolean } = {}): OwnerReference {
  const ref: OwnerReference = { apiVersion: apiVersionOfKind(kind), kind: kind.kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '' };
  if (options.controller === true) ref.controller = true;
  if (options.blockOwnerDeletion === true) ref.blockOwnerDeletion = true;
  return ref;
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  const group = (v: string): string => (v.includes('/') ? v.slice(0, v.indexOf('/')) : '');
  return group(a.apiVersion) === group(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function upsert(obj: KubeObject, ref: OwnerReference): void {
  obj.metadata ??= {};
  const refs = [...(obj.metadata.ownerReferences ?? [])];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
  obj.metadata.ownerReferences = refs;
}

/**
 * Makes `owner` the controller of `obj` (controllerutil.SetControllerReference: controller and
 * blockOwnerDeletion true). Throws {@link AlreadyOwnedError} if another object controls it.
 * `obj` must be mutable (a copy, not a cached object).
 */
export function setControllerReference(kind: ResourceKind<unknown, unknown>, owner: KubeObject, obj: KubeObject): void {
  const ref = ownerReferenceFor(kind, owner, { controller: true, blockOwnerDeletion: true });
  const existing = controllerOf(obj);
  if (existing !== undefined && !sameOwner(existing, ref)) throw new AlreadyOwnedError(obj.metadata?.name ?? '', existing);
  upsert(obj, ref);
}

/** Adds (or updates) a plain owner reference to `owner` on `obj` (controllerutil.SetOwnerReference). */
export function setOwnerReference(kind: ResourceKind<unknown, unknown>, owner: KubeObject, obj: KubeObject): void {
  upsert(obj, ownerReferenceFor(kind, owner));
}

/** The controller reference of `obj`, if any (metav1.GetControllerOf). */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}
