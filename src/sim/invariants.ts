/**
 * Invariants over the simulated cluster's state (no upstream counterpart). An invariant is a named
 * predicate returning a violation message, or nothing when it holds. `invariants` of a simulation are
 * checked after every step that wrote something; `eventually` ones once the run quiesced after its scenario.
 * Built-ins: {@link singleControllerOwner} (always), {@link noStuckFinalizers} (eventually); the controller
 * harness itself checks `noConcurrentReconcileOfKey` and `cachedObjectMutated` (a watch's map function
 * wrote into the cached object it was handed), and the run checks `quiescence` (the cluster settles
 * before the deadline: a requeue or write storm never does), `uncaughtException` (a timer callback of the
 * code under test threw).
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { ObjectKey } from '../client/client.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { keyOf, type SimCluster, type SimKind } from './cluster.ts';

/** Read-only access to the cluster's true state (what the server stores, not what a cache saw). */
export interface ClusterView {
  /** One object, or undefined. Shared: never mutate. */
  get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey): T | undefined;
  /** Every object of a kind, optionally in one namespace, in key order. Shared: never mutate. */
  list<T extends KubeObject>(kind: ResourceKind<T, unknown>, namespace?: string): T[];
  /** Every kind the cluster has seen. */
  kinds(): SimKind[];
}

/** A named predicate over the cluster. */
export interface Invariant {
  /** Shown in failure reports. */
  readonly name: string;
  /** Returns a message describing the violation, or undefined when the invariant holds. */
  check(view: ClusterView): string | undefined;
}

/** The view of a {@link SimCluster}. */
export function clusterView(cluster: SimCluster): ClusterView {
  return {
    get: <T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey): T | undefined => cluster.peek(kind, keyOf(kind, key.namespace, key.name)) as T | undefined,
    list: <T extends KubeObject>(kind: ResourceKind<T, unknown>, namespace?: string): T[] => cluster.peekAll(kind, namespace) as T[],
    kinds: () => cluster.kinds(),
  };
}

/** Always: no object has two controller owner references (two controllers would fight over it). */
export const singleControllerOwner: Invariant = {
  name: 'singleControllerOwner',
  check(view) {
    for (const kind of view.kinds()) {
      for (const o of view.list(kind)) {
        const n = (o.metadata?.ownerReferences ?? []).filter((r) => r.controller === true).length;
        if (n > 1) return `${kind.resource} ${o.metadata?.namespace ?? ''}/${o.metadata?.name} has ${n} controller owners`;
      }
    }
    return undefined;
  },
};

/** Eventually: nothing is left terminating with finalizers nobody removes. */
export const noStuckFinalizers: Invariant = {
  name: 'noStuckFinalizers',
  check(view) {
    for (const kind of view.kinds()) {
      for (const o of view.list(kind)) {
        if (o.metadata?.deletionTimestamp !== undefined) return `${kind.resource} ${o.metadata.namespace ?? ''}/${o.metadata.name} is stuck terminating with finalizers [${(o.metadata.finalizers ?? []).join(', ')}]`;
      }
    }
    return undefined;
  },
};

/** Objects of `childKind` whose controller owner reference points at `parent`. */
export function controlledBy<T extends KubeObject>(view: ClusterView, childKind: ResourceKind<T, unknown>, parent: KubeObject): T[] {
  const uid = parent.metadata?.uid;
  return view.list(childKind, parent.metadata?.namespace).filter((c) => (c.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid));
}

/**
 * An invariant bounding the children each parent controls: `at most` (checked always) or `exactly`
 * (checked eventually) `count(parent)`, e.g. a ReplicaSet's pods and `spec.replicas`.
 */
export function childCount<P extends KubeObject, C extends KubeObject>(
  name: string,
  parentKind: ResourceKind<P, unknown>,
  childKind: ResourceKind<C, unknown>,
  count: (parent: P) => number,
  mode: 'atMost' | 'exactly',
): Invariant {
  return {
    name,
    check(view) {
      for (const p of view.list(parentKind)) {
        if (p.metadata?.deletionTimestamp !== undefined) continue;
        const n = controlledBy(view, childKind, p).length;
        const want = count(p);
        if (mode === 'atMost' ? n > want : n !== want) return `${parentKind.kind} ${p.metadata?.namespace}/${p.metadata?.name} controls ${n} ${childKind.resource}, expected ${mode === 'atMost' ? 'at most ' : ''}${want}`;
      }
      return undefined;
    },
  };
}
