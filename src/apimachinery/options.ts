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
  labelSelector?: string;
  fieldSelector?: string;
  /** '' = most recent (quorum read), '0' = any (served from cache), otherwise a specific revision. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Page size; the server may return fewer items and a continue token. */
  limit?: number;
  continue?: string;
  /** Server-side timeout for LIST/WATCH. */
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  /** Watch-list: stream the current state as ADDED events ending with an initial-events-end bookmark. */
  sendInitialEvents?: boolean;
}

/** metav1.GetOptions. */
export interface GetOptions extends RequestOptions {
  resourceVersion?: string;
}

/** Whether writes are persisted ('All' = validate only). */
export type DryRun = 'All';

/** How the server treats unknown or duplicate fields (metav1 fieldValidation). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** metav1.CreateOptions. */
export interface CreateOptions extends RequestOptions {
  dryRun?: DryRun[];
  fieldManager?: string;
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
  fieldManager: string;
  force?: boolean;
  dryRun?: DryRun[];
}

/** How dependents are handled on delete (metav1.DeletionPropagation). */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** metav1.DeleteOptions. */
export interface DeleteOptions extends RequestOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: PropagationPolicy;
  dryRun?: DryRun[];
}

/** The patch content types the API server accepts (types.PatchType). */
export const PatchType = {
  JSON: 'application/json-patch+json',
  Merge: 'application/merge-patch+json',
  StrategicMerge: 'application/strategic-merge-patch+json',
  Apply: 'application/apply-patch+yaml',
} as const;

/** One of the {@link PatchType} values. */
export type PatchTypeValue = (typeof PatchType)[keyof typeof PatchType];
