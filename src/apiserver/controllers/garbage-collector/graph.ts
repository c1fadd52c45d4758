/**
 * The garbage collector's dependency graph (pkg/controller/garbagecollector/graph.go): one node per object
 * UID, with the owner references it declares and the set of its dependents. A node is "virtual" until an
 * event for its object has been observed: an owner reference alone creates a virtual node, which the
 * collector then verifies against the API.
 */
import type { OwnerReference } from '../../../api/meta/v1.ts';

/** An object's coordinates: apiVersion, kind, name and uid, plus its namespace (objectReference). */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** '' for cluster-scoped objects (and for virtual owners of cluster-scoped dependents). */
  readonly namespace: string;
}

/** objectReference.String(), as the collector's messages and events print it. */
export function identityString(id: ObjectIdentity): string {
  return `[${id.apiVersion}/${id.kind}, namespace: ${id.namespace}, name: ${id.name}, uid: ${id.uid}]`;
}

/** Structural equality of identities. */
export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

/** ownerReferenceMatchesCoordinates: same uid, name, kind and apiVersion. */
export function referenceMatches(ref: OwnerReference, id: Pick<ObjectIdentity, 'uid' | 'name' | 'kind' | 'apiVersion'>): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

/** The identity an owner reference points at, within `namespace`. */
export function referenceIdentity(ref: OwnerReference, namespace: string): ObjectIdentity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/** One object in the graph. Nodes are compared by reference, as upstream compares pointers. */
export class GraphNode {
  identity: ObjectIdentity;
  /** The objects whose owner references name this one. */
  readonly dependents = new Set<GraphNode>();
  /** The owner references the object declared when last observed. */
  owners: OwnerReference[];
  /** The object is being deleted and carries the foregroundDeletion finalizer. */
  deletingDependents: boolean;
  /** The object has a deletionTimestamp. */
  beingDeleted: boolean;
  /** Known only from owner references, not yet observed. */
  virtual: boolean;

  constructor(init: { identity: ObjectIdentity; owners?: OwnerReference[]; deletingDependents?: boolean; beingDeleted?: boolean; virtual?: boolean }) {
    this.identity = init.identity;
    this.owners = init.owners ?? [];
    this.deletingDependents = init.deletingDependents ?? false;
    this.beingDeleted = init.beingDeleted ?? false;
    this.virtual = init.virtual ?? false;
  }

  /** A copy with the same dependents and owners (used when a virtual node changes identity). */
  clone(): GraphNode {
    const c = new GraphNode({ identity: this.identity, owners: [...this.owners], deletingDependents: this.deletingDependents, beingDeleted: this.beingDeleted, virtual: this.virtual });
    for (const d of this.dependents) c.dependents.add(d);
    return c;
  }

  /** Whether an event for the object itself has been seen. */
  isObserved(): boolean {
    return !this.virtual;
  }

  /** The dependents whose reference to this node has blockOwnerDeletion set. */
  blockingDependents(): GraphNode[] {
    const out: GraphNode[] = [];
    for (const dep of this.dependents) {
      for (const owner of dep.owners) if (owner.uid === this.identity.uid && owner.blockOwnerDeletion === true) out.push(dep);
    }
    return out;
  }
}
