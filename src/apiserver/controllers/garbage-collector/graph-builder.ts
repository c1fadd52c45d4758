/**
 * The garbage collector's GraphBuilder (pkg/controller/garbagecollector/graph_builder.go): turns the
 * stream of object changes into the dependency graph and decides which nodes the collector must look at —
 * dependents whose owners went away or start deleting in the foreground, owners that start orphaning,
 * owners a blocking dependent released, and dependents whose owner references look wrong (another
 * namespace, other coordinates). Changes arrive from the server's storage instead of informers.
 */
import type { OwnerReference } from '../../../api/meta/v1.ts';
import { metaOf } from '../../object-meta.ts';
import { foregroundDeletionFinalizer, orphanFinalizer } from '../../registry/generic/garbage-collection-policy.ts';
import { stringList } from '../../registry/generic/deletion.ts';
import { ownerReferencesOf } from '../loopback-client.ts';
import { GraphNode, referenceIdentity, referenceMatches, sameIdentity, type ObjectIdentity } from './graph.ts';

type Obj = Record<string, unknown>;

/** One change of an object, real (from storage) or virtual (the collector found the object absent). */
export interface GraphEvent {
  readonly type: 'add' | 'update' | 'delete';
  /** The object (for virtual deletes: only its identity as metadata). */
  readonly obj: Obj;
  /** The previous state of an update. */
  readonly oldObj?: Obj | undefined;
  readonly apiVersion: string;
  readonly kind: string;
  readonly virtual?: boolean;
}

/** What the builder hands work to. */
export interface GraphBuilderSinks {
  /** Adds a node to the attemptToDelete queue. */
  attemptToDelete(node: GraphNode): void;
  /** Adds a node to the attemptToDelete queue after the queue's backoff. */
  attemptToDeleteRateLimited(node: GraphNode): void;
  /** Adds a node to the attemptToOrphan queue. */
  attemptToOrphan(node: GraphNode): void;
  /** Queues a graph change (virtual deletes go through the same queue as real changes). */
  graphChange(event: GraphEvent): void;
  /** Records the OwnerRefInvalidNamespace warning for `dependent`. */
  reportInvalidNamespaceOwnerRef(dependent: GraphNode, ownerRef: OwnerReference): void;
}

function beingDeleted(obj: Obj): boolean {
  return metaOf(obj).deletionTimestamp !== undefined;
}

function hasFinalizer(obj: Obj, finalizer: string): boolean {
  return stringList(metaOf(obj).finalizers).includes(finalizer);
}

/** deletionStartsWithFinalizer: the object is now being deleted with `finalizer`, and was not before. */
function deletionStartsWithFinalizer(oldObj: Obj | undefined, obj: Obj, finalizer: string): boolean {
  if (!beingDeleted(obj) || !hasFinalizer(obj, finalizer)) return false;
  if (oldObj === undefined) return true;
  return !beingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer);
}

function identityFromEvent(event: GraphEvent): ObjectIdentity {
  const meta = metaOf(event.obj);
  return { apiVersion: event.apiVersion, kind: event.kind, uid: String(meta.uid), name: String(meta.name), namespace: typeof meta.namespace === 'string' ? meta.namespace : '' };
}

/** The owner references added, removed and changed between two lists, matched by uid. */
function referencesDiffs(old: readonly OwnerReference[], next: readonly OwnerReference[]): { added: OwnerReference[]; removed: OwnerReference[]; changed: { oldRef: OwnerReference; newRef: OwnerReference }[] } {
  const oldByUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  for (const ref of next) {
    const before = oldByUid.get(ref.uid);
    if (before === undefined) added.push(ref);
    else {
      if (JSON.stringify(before) !== JSON.stringify(ref)) changed.push({ oldRef: before, newRef: ref });
      oldByUid.delete(ref.uid);
    }
  }
  return { added, removed: [...oldByUid.values()], changed };
}

/**
 * partitionDependents: the dependents whose reference to `owner.uid` matches its coordinates (and, for a
 * namespaced owner, its namespace), and those whose reference does not.
 */
function partitionDependents(dependents: Iterable<GraphNode>, owner: ObjectIdentity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace !== '' && owner.namespace !== dep.identity.namespace) mismatch = true;
    else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (referenceMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

function identityLess(a: ObjectIdentity, b: ObjectIdentity): boolean {
  for (const k of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) if (a[k] !== b[k]) return a[k] < b[k];
  return false;
}

/**
 * getAlternateOwnerIdentity: after a virtual owner identity was verified absent, the next identity some
 * dependent gives the same uid (sorted, the first after the absent one, else the first), to verify next.
 */
function alternateOwnerIdentity(deps: Iterable<GraphNode>, absent: ObjectIdentity): ObjectIdentity | undefined {
  const absentClusterScoped = absent.namespace === '';
  const seen = new Set<string>([JSON.stringify(absent)]);
  let first: ObjectIdentity | undefined;
  let firstFollowing: ObjectIdentity | undefined;
  for (const dep of deps) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (referenceMatches(ref, absent) && (absentClusterScoped || absent.namespace === dep.identity.namespace)) continue;
      let id = referenceIdentity(ref, dep.identity.namespace);
      if (absentClusterScoped && id.apiVersion === absent.apiVersion && id.kind === absent.kind) id = { ...id, namespace: '' };
      const key = JSON.stringify(id);
      if (seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || identityLess(id, first)) first = id;
      if (identityLess(absent, id) && (firstFollowing === undefined || identityLess(id, firstFollowing))) firstFollowing = id;
    }
  }
  return firstFollowing ?? first;
}

/** The graph and the rules that maintain it. */
export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();
  readonly #sinks: GraphBuilderSinks;

  constructor(sinks: GraphBuilderSinks) {
    this.#sinks = sinks;
  }

  /** enqueueVirtualDeleteEvent: the collector found `id` absent from the API. */
  enqueueVirtualDeleteEvent(id: ObjectIdentity): void {
    this.#sinks.graphChange({ type: 'delete', virtual: true, apiVersion: id.apiVersion, kind: id.kind, obj: { metadata: { name: id.name, namespace: id.namespace, uid: id.uid } } });
  }

  #addDependentToOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.get(owner.uid);
      const existed = ownerNode !== undefined;
      if (ownerNode === undefined) {
        // Until observed, a virtual owner is assumed to live in the dependent's namespace.
        ownerNode = new GraphNode({ identity: referenceIdentity(owner, n.identity.namespace), virtual: true });
        this.uidToNode.set(owner.uid, ownerNode);
      }
      ownerNode.dependents.add(n);
      if (!existed) {
        this.#sinks.attemptToDelete(ownerNode);
      } else if (!potentiallyInvalid) {
        const ownerNamespaced = ownerNode.identity.namespace !== '';
        if (ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace) {
          if (ownerNode.isObserved()) this.#sinks.reportInvalidNamespaceOwnerRef(n, owner);
          potentiallyInvalid = true;
        } else if (!referenceMatches(owner, ownerNode.identity)) {
          potentiallyInvalid = true;
        } else if (!ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace && !ownerNode.isObserved()) {
          potentiallyInvalid = true;
        }
      }
    }
    if (potentiallyInvalid) this.#sinks.attemptToDelete(n);
  }

  #removeDependentFromOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.uidToNode.get(owner.uid)?.dependents.delete(n);
  }

  #insertNode(n: GraphNode): void {
    this.uidToNode.set(n.identity.uid, n);
    this.#addDependentToOwners(n, n.owners);
  }

  #removeNode(n: GraphNode): void {
    this.uidToNode.delete(n.identity.uid);
    this.#removeDependentFromOwners(n, n.owners);
  }

  /** Owners a removed or no-longer-blocking reference released: they may finish a foreground deletion. */
  #addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[]): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const node = this.uidToNode.get(ref.uid);
      if (node !== undefined) this.#sinks.attemptToDelete(node);
    }
    for (const c of changed) {
      if (c.oldRef.blockOwnerDeletion === true && c.newRef.blockOwnerDeletion !== true) {
        const node = this.uidToNode.get(c.newRef.uid);
        if (node !== undefined) this.#sinks.attemptToDelete(node);
      }
    }
  }

  #processTransitions(oldObj: Obj | undefined, obj: Obj, n: GraphNode): void {
    if (deletionStartsWithFinalizer(oldObj, obj, orphanFinalizer)) {
      this.#sinks.attemptToOrphan(n);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, obj, foregroundDeletionFinalizer)) {
      n.deletingDependents = true;
      for (const dep of n.dependents) this.#sinks.attemptToDelete(dep);
      this.#sinks.attemptToDelete(n);
    }
  }

  /** processGraphChanges for one event. */
  process(event: GraphEvent): void {
    const obj = event.obj;
    const uid = String(metaOf(obj).uid);
    let existing = this.uidToNode.get(uid);
    if (existing !== undefined && event.virtual !== true && !existing.isObserved()) {
      // The object behind a virtual node shows up: take its real identity, re-check dependents that disagree.
      const observed = identityFromEvent(event);
      if (!sameIdentity(observed, existing.identity)) {
        const { nonmatching } = partitionDependents(existing.dependents, observed);
        for (const dep of nonmatching) {
          if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) {
            const ref = dep.owners.find((r) => r.uid === observed.uid);
            if (ref !== undefined) this.#sinks.reportInvalidNamespaceOwnerRef(dep, ref);
          }
          this.#sinks.attemptToDelete(dep);
        }
        existing = existing.clone();
        existing.identity = observed;
        this.uidToNode.set(uid, existing);
      }
      existing.virtual = false;
    }
    if ((event.type === 'add' || event.type === 'update') && existing === undefined) {
      const n = new GraphNode({
        identity: identityFromEvent(event),
        owners: ownerReferencesOf(obj),
        deletingDependents: beingDeleted(obj) && hasFinalizer(obj, foregroundDeletionFinalizer),
        beingDeleted: beingDeleted(obj),
      });
      this.#insertNode(n);
      this.#processTransitions(event.oldObj, obj, n);
      return;
    }
    if (event.type === 'add' || event.type === 'update') {
      const n = existing!;
      const owners = ownerReferencesOf(obj);
      const { added, removed, changed } = referencesDiffs(n.owners, owners);
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        this.#addUnblockedOwnersToDeleteQueue(removed, changed);
        n.owners = owners;
        this.#addDependentToOwners(n, added);
        this.#removeDependentFromOwners(n, removed);
      }
      if (beingDeleted(obj)) n.beingDeleted = true;
      this.#processTransitions(event.oldObj, obj, n);
      return;
    }
    // delete
    if (existing === undefined) return;
    let removeExisting = true;
    if (event.virtual === true) {
      const deleted = identityFromEvent(event);
      if (existing.virtual) {
        // Some dependents name the same uid with other coordinates: only those naming `deleted` are affected.
        const { matching, nonmatching } = partitionDependents(existing.dependents, deleted);
        if (nonmatching.length > 0) {
          removeExisting = false;
          for (const dep of matching) this.#sinks.attemptToDelete(dep);
          if (sameIdentity(existing.identity, deleted)) {
            const replacement = alternateOwnerIdentity(nonmatching, deleted);
            if (replacement !== undefined) {
              const node = existing.clone();
              node.identity = replacement;
              this.uidToNode.set(uid, node);
              this.#sinks.attemptToDeleteRateLimited(node);
            }
          }
        }
      } else if (!sameIdentity(existing.identity, deleted)) {
        // The observed object exists; only references with the wrong coordinates are dangling.
        removeExisting = false;
        for (const dep of partitionDependents(existing.dependents, deleted).matching) this.#sinks.attemptToDelete(dep);
      }
    }
    if (!removeExisting) return;
    this.#removeNode(existing);
    for (const dep of existing.dependents) this.#sinks.attemptToDelete(dep);
    for (const owner of existing.owners) {
      const ownerNode = this.uidToNode.get(owner.uid);
      if (ownerNode?.deletingDependents === true) this.#sinks.attemptToDelete(ownerNode);
    }
  }
}
