/**
 * Request option types mirroring metav1 ListOptions, GetOptions, CreateOptions, UpdateOptions,
 * PatchOptions, ApplyOptions and DeleteOptions. Every call also accepts {@link RequestOptions}
 * (an AbortSignal and a per-request timeout).
 */
import type { Preconditions } from '../api/meta/v1.ts';

/** Options every API call accepts. */
export interface RequestOptions {
  /** Aborts the request (and, for watches, ends the stream); the abort reason surfaces unchanged. */
  signal?: AbortSignal;
  /** Per-request timeout in ms (rest.Config.Timeout); 0 or unset means none beyond the config's. */
  timeoutMs?: number;
}

/** How a LIST's resourceVersion is interpreted (metav1.ResourceVersionMatch). */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

/** How a LIST or WATCH response is decoded (kubeloom; never sent to the server). */
export interface DecodeOptions {
  /**
   * Decode each distinct `metadata.managedFields[].fieldsV1` once per client and share it, deeply
   * frozen, between the objects that carry the same bytes (default false). Saves much of the memory
   * and decoding time of managedFields; those values can then no longer be mutated. Informers that
   * freeze their objects ask for it.
   */
  internManagedFields?: boolean;
}

/** metav1.ListOptions (also used for WATCH). */
export interface ListOptions extends RequestOptions, DecodeOptions {
  /** Only objects whose labels match, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Only objects whose fields match, e.g. `status.phase=Running`. */
  fieldSelector?: string;
  /** '' = most recent (quorum read), '0' = any (served from cache), otherwise a specific revision. */
  resourceVersion?: string;
  /** How `resourceVersion` is interpreted (`NotOlderThan`, `Exact`). */
  resourceVersionMatch?: ResourceVersionMatch;
  /** Page size; the server may return fewer items and a continue token. */
  limit?: number;
  /** The continue token of the previous page. */
  continue?: string;
  /** Server-side timeout for LIST/WATCH. */
  timeoutSeconds?: number;
  /** Watch: ask for BOOKMARK events carrying the current resourceVersion. */
  allowWatchBookmarks?: boolean;
  /** Watch-list: stream the current state as ADDED events ending with an initial-events-end bookmark. */
  sendInitialEvents?: boolean;
  /**
   * Only objects whose 64-bit FNV-1a hash of a field lies in the given ranges (KEP-5866, Kubernetes
   * 1.36 alpha, ShardedListAndWatch gate), e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`. Servers that do not
   * know it ignore it and send everything; a list they filtered echoes it in `metadata.shardInfo`.
   */
  shardSelector?: string;
}

/** metav1.GetOptions. */
export interface GetOptions extends RequestOptions {
  /** '' (default): the latest, from storage; `0`: any version, possibly from the watch cache. */
  resourceVersion?: string;
}

/** Whether writes are persisted ('All' = validate only). */
export type DryRun = 'All';

/** How the server treats unknown or duplicate fields (metav1 fieldValidation). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** metav1.CreateOptions. */
export interface CreateOptions extends RequestOptions {
  /** `['All']`: validate and admit, but do not persist. */
  dryRun?: DryRun[];
  /** The manager recorded in managedFields. */
  fieldManager?: string;
  /** What the server does with unknown or duplicate fields (`Ignore`, `Warn`, `Strict`). */
  fieldValidation?: FieldValidation;
}

/** metav1.UpdateOptions (the same fields as CreateOptions). */
export type UpdateOptions = CreateOptions;

/** metav1.PatchOptions. */
export interface PatchOptions extends CreateOptions {
  /** Only for apply patches: take ownership of conflicting fields. */
  force?: boolean;
}

/** metav1.ApplyOptions: server-side apply needs a field manager. */
export interface ApplyOptions extends RequestOptions {
  /** The manager that owns the applied fields (required). */
  fieldManager: string;
  /** Take over fields owned by other managers instead of failing with a conflict. */
  force?: boolean;
  /** `['All']`: validate and admit, but do not persist. */
  dryRun?: DryRun[];
}

/** How dependents are handled on delete (metav1.DeletionPropagation). */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** metav1.DeleteOptions. */
export interface DeleteOptions extends RequestOptions {
  /** Seconds before the object is deleted; 0 deletes at once. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid and/or resourceVersion. */
  preconditions?: Preconditions;
  /** What happens to dependents: `Orphan`, `Background` or `Foreground`. */
  propagationPolicy?: PropagationPolicy;
  /** `['All']`: validate and admit, but do not delete. */
  dryRun?: DryRun[];
}

/** The patch content types the API server accepts (types.PatchType). */
export const PatchType = {
  /** RFC 6902 JSON Patch: a list of operations. */
  JSON: 'application/json-patch+json',
  /** RFC 7386 JSON Merge Patch: null deletes, lists replace. */
  Merge: 'application/merge-patch+json',
  /** Kubernetes' strategic merge patch (built-in types only): lists merge by key. */
  StrategicMerge: 'application/strategic-merge-patch+json',
  /** Server-side apply: the full intent of a field manager. */
  Apply: 'application/apply-patch+yaml',
} as const;

/** One of the {@link PatchType} values. */
export type PatchTypeValue = (typeof PatchType)[keyof typeof PatchType];
