/**
 * kube-controller-manager's garbage collector (pkg/controller/garbagecollector/garbagecollector.go,
 * operations.go, patch.go), running inside the server: three queues — graph changes (fed by every storage
 * write), attemptToDelete and attemptToOrphan — each drained by one worker on the server's clock.
 *
 * - An object whose owners are all gone (not found, or found with another uid) is deleted, in the
 *   background, in the foreground or orphaning as its own finalizers say; one with a live owner loses only
 *   its dangling references. Owner references are resolved in the dependent's namespace; a cluster-scoped
 *   dependent naming a namespaced owner is left alone.
 * - An owner deleted in the foreground (`foregroundDeletion` finalizer) has its dependents deleted; it keeps
 *   the finalizer until no dependent with `blockOwnerDeletion: true` is left.
 * - An owner deleted with the `orphan` finalizer has its reference removed from every dependent, then the
 *   finalizer.
 *
 * Core/v1 events are not watched (upstream's ignored resources). Writes go through the loopback client as
 * `kube-controller-manager`; the dependents are deleted with a uid precondition.
 */
import type { OwnerReference } from '../../../api/meta/v1.ts';
import { isNotFound } from '../../../apimachinery/errors.ts';
import type { Clock } from '../../../util/clock/clock.ts';
import { metaOf } from '../../object-meta.ts';
import { apiVersionString, storageKey } from '../../resources.ts';
import { foregroundDeletionFinalizer, orphanFinalizer, type PropagationPolicy } from '../../registry/generic/garbage-collection-policy.ts';
import { stringList } from '../../registry/generic/deletion.ts';
import type { Change } from '../../storage.ts';
import type { EventRecorder } from '../event-recorder.ts';
import { ownerReferencesOf, RestMappingError, type LoopbackClient } from '../loopback-client.ts';
import { QueueWorker, Requeue } from '../queue-worker.ts';
import type { ServerController } from '../controller.ts';
import { identityString, type GraphNode, type ObjectIdentity } from './graph.ts';
import { GraphBuilder, type GraphEvent } from './graph-builder.ts';

type Obj = Record<string, unknown>;

// DefaultIgnoredResources: core/v1 events are never owners or dependents worth a watch.
const ignoredStores: ReadonlySet<string> = new Set(['events']);

/** A cluster-scoped object cannot have a namespaced owner: such references are ignored. */
class NamespacedOwnerOfClusterScopedObject extends Error {}

/** Options of {@link GarbageCollector}. */
export interface GarbageCollectorOptions {
  client: LoopbackClient;
  clock: Clock;
  recorder: EventRecorder;
  /** Receives errors the workers hit (they are retried with backoff). */
  onError: (error: unknown) => void;
}

/** The garbage collector; see the file comment. */
export class GarbageCollector implements ServerController {
  readonly #client: LoopbackClient;
  readonly #recorder: EventRecorder;
  readonly #graph: GraphBuilder;
  readonly #graphChanges: QueueWorker<GraphEvent>;
  readonly #attemptToDelete: QueueWorker<GraphNode>;
  readonly #attemptToOrphan: QueueWorker<GraphNode>;
  #unsubscribe: (() => void) | undefined;

  constructor(options: GarbageCollectorOptions) {
    this.#client = options.client;
    this.#recorder = options.recorder;
    const onError = (err: unknown): void => options.onError(err);
    this.#graphChanges = new QueueWorker<GraphEvent>({ clock: options.clock, process: (e) => this.#graph.process(e), onError });
    const trace = { controller: 'garbagecollector', key: (n: GraphNode) => identityString(n.identity) };
    this.#attemptToDelete = new QueueWorker<GraphNode>({ clock: options.clock, process: (n) => this.#attemptToDeleteWorker(n), onError, trace });
    this.#attemptToOrphan = new QueueWorker<GraphNode>({ clock: options.clock, process: (n) => this.#attemptToOrphanWorker(n), onError, trace });
    this.#graph = new GraphBuilder({
      attemptToDelete: (n) => this.#attemptToDelete.queue.add(n),
      attemptToDeleteRateLimited: (n) => this.#attemptToDelete.queue.addRateLimited(n),
      attemptToOrphan: (n) => this.#attemptToOrphan.queue.add(n),
      graphChange: (e) => this.#graphChanges.queue.add(e),
      reportInvalidNamespaceOwnerRef: (dep, ref) => this.#reportInvalidNamespaceOwnerRef(dep, ref),
    });
  }

  /** Watches every resource (the informers' initial list first), then starts the workers. */
  start(): void {
    const storage = this.#client.scope.storage;
    this.#unsubscribe = storage.subscribeAll((c) => this.#onChange(c));
    for (const r of this.#client.preferredResources()) {
      if (ignoredStores.has(storageKey(r.group, r.resource))) continue;
      const apiVersion = apiVersionString(r.group, r.version);
      for (const obj of this.#client.list(r)) this.#graphChanges.queue.add({ type: 'add', obj, apiVersion, kind: r.kind });
    }
    this.#graphChanges.start();
    this.#attemptToDelete.start();
    this.#attemptToOrphan.start();
  }

  /** Stops watching and the workers. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await Promise.all([this.#graphChanges.stop(), this.#attemptToDelete.stop(), this.#attemptToOrphan.stop()]);
  }

  idle(): boolean {
    return this.#graphChanges.idle() && this.#attemptToDelete.idle() && this.#attemptToOrphan.idle();
  }

  #onChange(c: Change): void {
    if (ignoredStores.has(c.store)) return;
    let apiVersion: string;
    let kind: string;
    const r = this.#client.preferredResource(c.store);
    if (r !== undefined) {
      apiVersion = apiVersionString(r.group, r.version);
      kind = r.kind;
    } else {
      // The objects of a CRD that just went away: known by the identity the graph recorded.
      const node = this.#graph.uidToNode.get(String(metaOf(c.object.obj).uid));
      if (node === undefined || c.type !== 'DELETED') return;
      ({ apiVersion, kind } = node.identity);
    }
    const type = c.type === 'ADDED' ? 'add' : c.type === 'MODIFIED' ? 'update' : 'delete';
    this.#graphChanges.queue.add({ type, obj: c.object.obj, oldObj: c.type === 'MODIFIED' ? c.prev?.obj : undefined, apiVersion, kind });
  }

  #reportInvalidNamespaceOwnerRef(dep: GraphNode, ref: OwnerReference): void {
    const owner: ObjectIdentity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: dep.identity.namespace };
    this.#recorder.warning(dep.identity, 'OwnerRefInvalidNamespace', `ownerRef ${identityString(owner)} does not exist in namespace ${JSON.stringify(dep.identity.namespace)}`);
  }

  // --- operations.go -------------------------------------------------------------------------------

  #getObject(id: ObjectIdentity): Obj | undefined {
    const r = this.#client.resourceFor(id.apiVersion, id.kind);
    if (r.namespaced && id.namespace === '') throw new NamespacedOwnerOfClusterScopedObject();
    return this.#client.get(r, r.namespaced ? id.namespace : '', id.name);
  }

  #deleteObject(id: ObjectIdentity, policy: PropagationPolicy): void {
    const r = this.#client.resourceFor(id.apiVersion, id.kind);
    this.#client.delete(r, r.namespaced ? id.namespace : '', id.name, { preconditions: { uid: id.uid }, propagationPolicy: policy });
  }

  /** Rewrites the owner references of `node`'s object (the collector's patches); a missing object is fine. */
  #patchOwnerReferences(node: GraphNode, rewrite: (refs: OwnerReference[]) => OwnerReference[]): void {
    const r = this.#client.resourceFor(node.identity.apiVersion, node.identity.kind);
    this.#client.update(r, node.identity.namespace, node.identity.name, (obj) => {
      if (metaOf(obj).uid !== node.identity.uid) return undefined;
      const refs = rewrite(ownerReferencesOf(obj));
      const meta = metaOf(obj);
      if (refs.length === 0) delete meta.ownerReferences;
      else meta.ownerReferences = refs;
      return obj;
    });
  }

  #removeFinalizer(node: GraphNode, finalizer: string): void {
    const r = this.#client.resourceFor(node.identity.apiVersion, node.identity.kind);
    this.#client.update(r, node.identity.namespace, node.identity.name, (obj) => {
      const meta = metaOf(obj);
      const finalizers = stringList(meta.finalizers);
      if (!finalizers.includes(finalizer)) return undefined;
      const rest = finalizers.filter((f) => f !== finalizer);
      if (rest.length === 0) delete meta.finalizers;
      else meta.finalizers = rest;
      return obj;
    });
  }

  // --- garbagecollector.go -------------------------------------------------------------------------

  #attemptToDeleteWorker(n: GraphNode): void {
    if (!n.isObserved()) {
      const inGraph = this.#graph.uidToNode.get(n.identity.uid);
      // Skip a virtual node that left the graph or was replaced by an observed one.
      if (inGraph === undefined || inGraph.isObserved()) return;
    }
    let virtualDeleted = false;
    try {
      virtualDeleted = this.#attemptToDeleteItem(n);
    } catch (err) {
      if (err instanceof NamespacedOwnerOfClusterScopedObject) return;
      // Kinds that do not resolve (yet) are retried quietly, as upstream logs them at a low level.
      if (err instanceof RestMappingError) throw new Requeue();
      throw err;
    }
    // A virtual node whose object exists is retried until the object is observed.
    if (!virtualDeleted && !n.isObserved()) throw new Requeue();
  }

  /** attemptToDeleteItem; returns true when it enqueued a virtual delete event. */
  #attemptToDeleteItem(item: GraphNode): boolean {
    if (item.beingDeleted && !item.deletingDependents) return false;
    const latest = this.#getObject(item.identity);
    if (latest === undefined || metaOf(latest).uid !== item.identity.uid) {
      this.#graph.enqueueVirtualDeleteEvent(item.identity);
      return true;
    }
    if (item.deletingDependents) {
      this.#processDeletingDependentsItem(item);
      return false;
    }
    const ownerReferences = ownerReferencesOf(latest);
    if (ownerReferences.length === 0) return false;
    const { solid, dangling, waiting } = this.#classifyReferences(item, ownerReferences);
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return false;
      // Some owner lives: drop only the references to owners that are gone or deleting in the foreground.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      this.#patchOwnerReferences(item, (refs) => refs.filter((r) => !drop.has(r.uid)));
      return false;
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      for (const dep of item.dependents) {
        if (dep.deletingDependents) {
          // An owner and a dependent both wait on each other: stop blocking the owner, then go in the foreground.
          this.#patchOwnerReferences(item, (refs) => refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)));
          break;
        }
      }
      this.#deleteObject(item.identity, 'Foreground');
      return false;
    }
    const finalizers = stringList(metaOf(latest).finalizers);
    const policy: PropagationPolicy = finalizers.includes(orphanFinalizer) ? 'Orphan' : finalizers.includes(foregroundDeletionFinalizer) ? 'Foreground' : 'Background';
    this.#deleteObject(item.identity, policy);
    return false;
  }

  /** classifyReferences: owners that live, owners that are gone, owners deleting their dependents first. */
  #classifyReferences(item: GraphNode, refs: readonly OwnerReference[]): { solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] } {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const r = this.#client.resourceFor(ref.apiVersion, ref.kind);
      if (item.identity.namespace === '' && r.namespaced) throw new NamespacedOwnerOfClusterScopedObject();
      const owner = this.#client.get(r, r.namespaced ? item.identity.namespace : '', ref.name);
      if (owner === undefined || metaOf(owner).uid !== ref.uid) {
        dangling.push(ref);
        continue;
      }
      const meta = metaOf(owner);
      if (meta.deletionTimestamp !== undefined && stringList(meta.finalizers).includes(foregroundDeletionFinalizer)) waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting };
  }

  #processDeletingDependentsItem(item: GraphNode): void {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      this.#removeFinalizer(item, foregroundDeletionFinalizer);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#attemptToDelete.queue.add(dep);
  }

  #attemptToOrphanWorker(owner: GraphNode): void {
    const errors: unknown[] = [];
    for (const dep of [...owner.dependents]) {
      try {
        this.#patchOwnerReferences(dep, (refs) => refs.filter((r) => r.uid !== owner.identity.uid));
      } catch (err) {
        if (!isNotFound(err)) errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, `failed to orphan dependents of owner ${identityString(owner.identity)}`);
    this.#removeFinalizer(owner, orphanFinalizer);
  }
}
