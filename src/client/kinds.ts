/**
 * How the manager, cache, client and builder name a kind: a {@link ResourceKind}, the same
 * descriptor `kubeloom generate crd` emits for custom resources (a {@link CustomResource}), carrying the
 * object type at the type level. Built-in kinds come from {@link kinds}, typed by the generated clientset
 * interfaces: `kinds.appsV1.deployments` is a `ResourceKind<Deployment, DeploymentApplyConfiguration>`.
 * controller-runtime identifies kinds through a scheme and Go types; TypeScript has no runtime types, so
 * the descriptor is passed instead of an empty object.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { ApplyConfiguration, ResourceClient } from '../kubernetes/resource-client.ts';
import type { CustomResource } from '../kubernetes/resource-spec.ts';
import type { TypedClientset } from '../kubernetes/typed/clientset.ts';
import { builtinGroupVersions } from '../kubernetes/typed/resources.ts';

/** A kind the manager can cache, read and write: group, version, plural resource, kind, scope. */
export type ResourceKind<T = KubeObject, A = ApplyConfiguration<T>> = CustomResource<T, A>;

/** The object type of a {@link ResourceKind}. */
export type ObjectOf<K> = K extends CustomResource<infer T, unknown> ? T : never;

/** The kind descriptor of a typed client type (`PodInterface` → `ResourceKind<Pod, PodApplyConfiguration>`). */
export type KindOfClient<C> = C extends ResourceClient<infer T, infer A> ? ResourceKind<T, A> : never;
/** The client type a clientset accessor returns. */
export type ClientOf<F> = F extends (namespace?: string) => infer C ? C : never;

/** Every built-in resource serving get, list and watch, by clientset accessor. */
export type BuiltinKinds = {
  readonly [G in keyof TypedClientset]: TypedClientset[G] extends () => infer GI
    ? { readonly [R in keyof GI as [KindOfClient<ClientOf<GI[R]>>] extends [never] ? never : R]: KindOfClient<ClientOf<GI[R]>> }
    : never;
};

function buildKinds(): BuiltinKinds {
  const out: Record<string, Record<string, ResourceKind<unknown, unknown>>> = {};
  for (const gv of builtinGroupVersions) {
    const group: Record<string, ResourceKind<unknown, unknown>> = {};
    for (const r of gv.resources) {
      if (!r.verbs.includes('get') || !r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
      group[r.accessor] = Object.freeze({
        group: gv.group,
        version: gv.version,
        resource: r.resource,
        kind: r.kind,
        namespaced: r.namespaced,
        subresources: r.subresources.map((s) => s.name),
      });
    }
    out[gv.accessor] = group;
  }
  return out as unknown as BuiltinKinds;
}

/**
 * The built-in kinds, typed: `kinds.coreV1.pods`, `kinds.batchV1.jobs`, `kinds.coordinationV1.leases`.
 *
 * @example
 * const deployment = await client.get(kinds.appsV1.deployments, { namespace: 'default', name: 'web' });
 */
export const kinds: BuiltinKinds = buildKinds();

/** `group/version/resource`, the cache's key of a kind. */
export function kindKey(kind: ResourceKind<unknown, unknown>): string {
  return `${kind.group}/${kind.version}/${kind.resource}`;
}

/** The apiVersion of a kind ("v1", "apps/v1"). */
export function apiVersionOfKind(kind: ResourceKind<unknown, unknown>): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}
