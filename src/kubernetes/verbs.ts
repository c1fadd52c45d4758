/**
 * One small interface per verb, so a generated client interface offers exactly the verbs its
 * resource serves (client-go's `+genclient:onlyVerbs`): a TokenReview client can only `create`.
 * Resources that serve every verb get the whole {@link ResourceClient} instead.
 */
import type { Status } from '../apimachinery/errors.ts';
import type { KubeList } from '../apimachinery/object.ts';
import type { ApplyOptions, CreateOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, PatchTypeValue, UpdateOptions } from '../apimachinery/options.ts';
import type { WatchStream } from '../rest/client.ts';
import type { ResourceClient } from './resource-client.ts';

/** What every client exposes about its resource (no verbs). */
export type ResourceClientInfo = Pick<ResourceClient<unknown>, 'rest' | 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'targetNamespace'>;

/** The `create` verb. */
export interface CreateVerb<T> {
  /** Creates an object (POST). */
  create(obj: T, options?: CreateOptions): Promise<T>;
}

/** The `get` verb. */
export interface GetVerb<T> {
  /** Reads one object (GET). */
  get(name: string, options?: GetOptions): Promise<T>;
}

/** The `list` verb. */
export interface ListVerb<T> {
  /** Lists objects. */
  list(options?: ListOptions): Promise<KubeList<T>>;
}

/** The `watch` verb. */
export interface WatchVerb<T> {
  /** Watches the collection. */
  watch(options?: ListOptions): Promise<WatchStream<T>>;
}

/** The `update` verb. */
export interface UpdateVerb<T> {
  /** Replaces an object (PUT). */
  update(obj: T, options?: UpdateOptions): Promise<T>;
}

/** The `patch` verb, with server-side apply. */
export interface PatchVerb<T, A> {
  /** Patches an object. */
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Server-side apply; `fieldManager` is required. */
  apply(obj: A, options: ApplyOptions): Promise<T>;
}

/** The `delete` verb. */
export interface DeleteVerb<T> {
  /** Deletes an object. */
  delete(name: string, options?: DeleteOptions): Promise<Status | T>;
}

/** The `deletecollection` verb. */
export interface DeleteCollectionVerb {
  /** Deletes every object matching `listOptions`. */
  deleteCollection(options?: DeleteOptions, listOptions?: ListOptions): Promise<void>;
}
