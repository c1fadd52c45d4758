/**
 * Adds a resource's subresource methods to a {@link ResourceClient}, from its
 * {@link SubresourceSpec}s (client-go writes these by hand per resource: `GetScale`, `UpdateScale`,
 * `ApplyScale`, `UpdateEphemeralContainers`, `EvictV1`, `Bind`, `CreateToken`, `GetLogs` ...).
 * One rule names them all, `<verb><Method>`:
 *
 * - `get<M>(name, options)`: GET; plain-text subresources (pods/log) resolve to the text;
 * - `update<M>(obj, options)` for the parent's own kind (status, resize ...), named by
 *   `obj.metadata.name`; `update<M>(name, body, options)` for another kind (scale);
 * - `patch<M>(name, patchType, patch, options)`;
 * - `apply<M>(obj, options)` / `apply<M>(name, body, options)`: server-side apply, where patch is served;
 * - `create<M>(name, body, options)`: POST (eviction, binding, token).
 *
 * `connect` subresources (exec, attach, portforward, proxy) need streaming protocols and get no method.
 */
import type { ApplyOptions, CreateOptions, GetOptions, PatchOptions, PatchTypeValue, RequestOptions, UpdateOptions } from '../apimachinery/options.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { RequestConstructionError } from '../rest/request.ts';
import type { ResourceClient } from './resource-client.ts';
import type { SubresourceSpec } from './resource-spec.ts';

/** The keys of {@link RequestOptions}, which are not query parameters of a text subresource. */
const requestOptionKeys: ReadonlySet<string> = new Set(['signal', 'timeoutMs']);

function nameOf(obj: unknown, method: string): string {
  const name = (obj as KubeObject | undefined)?.metadata?.name;
  if (name === undefined || name === '') throw new RequestConstructionError(`${method} needs metadata.name on the object`);
  return name;
}

/** The method names a subresource spec gives a client (for documentation and tests). */
export function subresourceMethodNames(spec: SubresourceSpec): string[] {
  const names: string[] = [];
  for (const verb of spec.verbs) {
    if (verb === 'get' || verb === 'update' || verb === 'patch' || verb === 'create') names.push(`${verb}${spec.method}`);
    if (verb === 'patch' && spec.text !== true) names.push(`apply${spec.method}`);
  }
  return names;
}

/**
 * Returns `client` with the methods of `subresources` added (own properties; methods the class
 * already has, `updateStatus` and `applyStatus`, are kept).
 */
export function withSubresources<C>(client: ResourceClient<unknown, unknown>, subresources: readonly SubresourceSpec[]): C {
  const methods: Record<string, unknown> = {};
  for (const spec of subresources) {
    const sub = spec.name;
    for (const verb of spec.verbs) {
      switch (verb) {
        case 'get':
          methods[`get${spec.method}`] =
            spec.text === true
              ? (name: string, options: RequestOptions & Record<string, unknown> = {}) => {
                  const query: Record<string, string | number | boolean | undefined> = {};
                  for (const [k, v] of Object.entries(options)) if (!requestOptionKeys.has(k)) query[k] = v as string | number | boolean | undefined;
                  return client.getSubresourceText(name, sub, query, options);
                }
              : (name: string, options?: GetOptions) => client.getSubresource(name, sub, options);
          break;
        case 'update':
          methods[`update${spec.method}`] = spec.sameKind
            ? (obj: unknown, options?: UpdateOptions) => client.updateSubresource(nameOf(obj, `update${spec.method}`), sub, obj, options)
            : (name: string, body: unknown, options?: UpdateOptions) => client.updateSubresource(name, sub, body, options);
          break;
        case 'patch':
          methods[`patch${spec.method}`] = (name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions) => client.patchSubresource(name, sub, patchType, patch, options);
          if (spec.text !== true) {
            methods[`apply${spec.method}`] = spec.sameKind
              ? (obj: unknown, options: ApplyOptions) => client.applySubresource(nameOf(obj, `apply${spec.method}`), sub, obj, options)
              : (name: string, body: unknown, options: ApplyOptions) => client.applySubresource(name, sub, body, options);
          }
          break;
        case 'create':
          methods[`create${spec.method}`] = (name: string, body: unknown, options?: CreateOptions) => client.createSubresource(name, sub, body, options);
          break;
        default:
          break;
      }
    }
  }
  for (const [name, fn] of Object.entries(methods)) {
    if (!(name in client)) Object.defineProperty(client, name, { value: fn, enumerable: false, configurable: true, writable: true });
  }
  return client as C;
}
