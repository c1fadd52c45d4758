/**
 * Adoption and release by controller reference (kubernetes/pkg/controller/controller_ref_manager.go,
 * BaseControllerRefManager.ClaimObject with PodControllerRefManager / ReplicaSetControllerRefManager /
 * ControllerRevisionControllerRefManager): of the objects a controller sees, it keeps those it controls
 * that still match its selector, releases those it controls that no longer match, and adopts orphans that
 * match — after checking once with a live read (RecheckDeletionTimestamp) that it was not deleted or
 * replaced since its cache saw it. Adoption and release are strategic merge patches naming the object's
 * uid, so a patch never lands on a recreated namesake.
 */
import type { OwnerReference } from '../api/meta/v1.ts';
import { isInvalid, isNotFound } from '../apimachinery/errors.ts';
import type { LabelSelector } from '../apimachinery/labels.ts';
import { PatchType, type PatchOptions, type PatchTypeValue } from '../apimachinery/options.ts';
import { getControllerOf } from './controller-utils.ts';

/** An object a controller may own. */
export interface Ownable {
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; deletionTimestamp?: string; ownerReferences?: OwnerReference[] };
}

/** The patch call adoption and release need. */
export interface PatchingClient<T> {
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<T>;
}

/** Options of {@link ControllerRefManager}. */
export interface ControllerRefManagerOptions<T> {
  /** The controller (its uid, name, namespace and deletionTimestamp are read). */
  controller: Ownable;
  /** Its apiVersion and kind, as the references it writes name them. */
  apiVersion: string;
  kind: string;
  selector: LabelSelector;
  /** Patches the controlled objects (in the controller's namespace). */
  client: PatchingClient<T>;
  /**
   * The live check before the first adoption: resolves when the controller may adopt, throws otherwise
   * (upstream RecheckDeletionTimestamp over an uncached GET).
   */
  canAdopt: () => Promise<void>;
}

/** Claims objects for one controller; see the file comment. */
export class ControllerRefManager<T extends Ownable> {
  readonly #o: ControllerRefManagerOptions<T>;
  #canAdopt: Promise<void> | undefined;

  constructor(options: ControllerRefManagerOptions<T>) {
    this.#o = options;
  }

  /**
   * The objects the controller owns after adopting and releasing (ClaimObject over each). Errors from
   * adoption or release are collected and the first thrown after every object had its turn, as upstream
   * aggregates them.
   */
  async claim(objects: readonly T[], filter: (obj: T) => boolean = () => true): Promise<T[]> {
    const claimed: T[] = [];
    const errors: unknown[] = [];
    for (const obj of objects) {
      try {
        const ok = await this.#claimObject(obj, filter);
        if (ok !== undefined) claimed.push(ok);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
    return claimed;
  }

  async #claimObject(obj: T, filter: (obj: T) => boolean): Promise<T | undefined> {
    const controller = this.#o.controller;
    const uid = controller.metadata?.uid ?? '';
    const ref = getControllerOf(obj);
    const matches = this.#o.selector.matches(obj.metadata?.labels ?? {}) && filter(obj);
    if (ref !== undefined) {
      if (ref.uid !== uid) return undefined;
      if (matches) return obj;
      // Ours but no longer matching: release, unless either side is being deleted.
      if (obj.metadata?.deletionTimestamp !== undefined || controller.metadata?.deletionTimestamp !== undefined) return undefined;
      await this.#release(obj);
      return undefined;
    }
    // An orphan.
    if (controller.metadata?.deletionTimestamp !== undefined || !matches) return undefined;
    if (obj.metadata?.deletionTimestamp !== undefined) return undefined;
    if ((controller.metadata?.namespace ?? '') !== '' && obj.metadata?.namespace !== controller.metadata?.namespace) return undefined;
    return this.#adopt(obj);
  }

  async #adopt(obj: T): Promise<T | undefined> {
    this.#canAdopt ??= this.#o.canAdopt();
    await this.#canAdopt;
    const c = this.#o.controller;
    const ref: OwnerReference = { apiVersion: this.#o.apiVersion, kind: this.#o.kind, name: c.metadata?.name ?? '', uid: c.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
    const patch = { metadata: { ownerReferences: [ref], uid: obj.metadata?.uid } };
    try {
      return await this.#o.client.patch(obj.metadata?.name ?? '', PatchType.StrategicMerge, patch);
    } catch (err) {
      // Gone meanwhile: nothing to adopt.
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async #release(obj: T): Promise<void> {
    const patch = { metadata: { ownerReferences: [{ $patch: 'delete', uid: this.#o.controller.metadata?.uid }], uid: obj.metadata?.uid } };
    try {
      await this.#o.client.patch(obj.metadata?.name ?? '', PatchType.StrategicMerge, patch);
    } catch (err) {
      // Gone, or replaced by an object with another uid (the uid in the patch is refused): nothing to release.
      if (isNotFound(err) || isInvalid(err)) return;
      throw err;
    }
  }
}

/**
 * RecheckDeletionTimestamp: a `canAdopt` that reads the controller live and refuses when it is gone,
 * replaced (another uid) or being deleted.
 */
export function recheckDeletionTimestamp(get: () => Promise<Ownable>, expected: Ownable, kind: string): () => Promise<void> {
  return async () => {
    const fresh = await get();
    const name = `${expected.metadata?.namespace ?? ''}/${expected.metadata?.name ?? ''}`;
    if (fresh.metadata?.uid !== expected.metadata?.uid) throw new Error(`original ${kind} ${name} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${expected.metadata?.uid ?? ''}`);
    if (fresh.metadata?.deletionTimestamp !== undefined) throw new Error(`${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
  };
}
