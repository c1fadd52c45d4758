// Kinds and helpers shared by the planted-bug corpus (test/sim/*.sim.ts).
import { isNotFound } from '../../src/apimachinery/errors.ts';
import type { KubeObject } from '../../src/apimachinery/object.ts';
import type { OwnerReference } from '../../src/api/meta/v1.ts';
import type { ResourceKind } from '../../src/client/kinds.ts';
import { kinds } from '../../src/client/kinds.ts';
import type { SimClient } from '../../src/sim/index.ts';

/** A set of pods with a desired count: a minimal ReplicaSet. */
export interface PodSet extends KubeObject {
  spec: { replicas: number };
  status?: { replicas?: number; observedGeneration?: number; reconciles?: number };
}

const group = 'sim.kubeloom.dev';

/** PodSets with a status subresource. */
export const podSets: ResourceKind<PodSet, unknown> = { group, version: 'v1', resource: 'podsets', kind: 'PodSet', namespaced: true, subresources: ['status'] };

/** PodSets whose status is part of the main resource (no status subresource), as many early CRDs. */
export const legacySets: ResourceKind<PodSet, unknown> = { group, version: 'v1', resource: 'legacysets', kind: 'LegacySet', namespaced: true, subresources: [] };

/** Built-in kinds used by the corpus. */
export const pods = kinds.coreV1.pods;
export const configMaps = kinds.coreV1.configMaps;

/** The controller owner reference of `owner`. */
export function controllerRef(kind: ResourceKind<KubeObject, unknown>, owner: KubeObject): OwnerReference {
  return { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

/** True when `child` is controlled by `owner`. */
export function isControlledBy(child: KubeObject, owner: KubeObject): boolean {
  return (child.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata?.uid);
}

/** A pod spec good enough for the simulator (it validates nothing). */
export const podSpec = { containers: [{ name: 'app', image: 'registry.example/app:1' }] };

/** Reads an object from the client, or undefined when it does not exist. */
export async function getOrUndefined<T extends KubeObject>(client: SimClient, kind: ResourceKind<T, unknown>, key: { namespace: string; name: string }): Promise<T | undefined> {
  try {
    return await client.get(kind, key);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Buckets: something backed by an external resource, which a finalizer must clean up. */
export const buckets: ResourceKind<KubeObject, unknown> = { group, version: 'v1', resource: 'buckets', kind: 'Bucket', namespaced: true, subresources: ['status'] };
