/**
 * How the workload controllers create and delete their pods (kubernetes/pkg/controller/controller_utils.go:
 * PodControlInterface and RealPodControl's CreatePods / DeletePod): one API call, then a
 * SuccessfulCreate / SuccessfulDelete event on the owner, or a FailedCreate / FailedDelete event with the
 * error (a delete of a pod already gone records nothing, as upstream); the ReplicaSet, Job and DaemonSet
 * controllers write their pods through it. On top of it, the two loops the
 * ReplicaSet and Job controllers share (the slow-start creates of manageReplicas / manageJob and their
 * parallel deletes), each keeping the owner's expectations in step with the calls that will never be
 * observed by the informer.
 *
 * Where kubeloom differs: a create refused because the namespace is terminating still records its
 * FailedCreate event (v1.24's RealPodControl skips the event); kubeloom's controllers always recorded it,
 * and this module keeps that. Upstream's refusal of a pod without labels is left to the callers, whose
 * templates always carry the selector's labels.
 */
import type { Pod } from '../api/core/v1.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { objectKey } from '../apimachinery/meta.ts';
import type { UIDTrackingControllerExpectations } from '../controller/expectations.ts';
import type { Clientset } from '../kubernetes/clientset.ts';
import type { EventRecorder } from '../tools/events/record/event.ts';
import type { EventSubject } from '../tools/events/util.ts';
import { hasStatusCause, slowStartBatch, slowStartInitialBatchSize } from './controller-utils.ts';

/** `err` as an Error (what a rejected promise holds is not always one). */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The message of an error as Go's err.Error() would print it. */
function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Creates and deletes pods on behalf of a controller, recording an event on the owner for each call
 * (controller.RealPodControl).
 */
export class RealPodControl {
  readonly #client: Clientset;
  readonly #recorder: EventRecorder;

  /** Writes through `client`; events go to `recorder`. */
  constructor(client: Clientset, recorder: EventRecorder) {
    this.#client = client;
    this.#recorder = recorder;
  }

  /**
   * Creates `pod` in `namespace` (CreatePods): SuccessfulCreate with the new pod's name on success, else
   * FailedCreate and the error thrown.
   */
  async createPods(namespace: string, pod: Pod, object: EventSubject): Promise<Pod> {
    try {
      const created = await this.#client.coreV1().pods(namespace).create(pod);
      this.#recorder.eventf(object, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
      return created;
    } catch (err) {
      this.#recorder.eventf(object, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      throw err;
    }
  }

  /**
   * Deletes the pod `podName` of `namespace` (DeletePod): SuccessfulDelete on success; a NotFound error is
   * thrown without an event, any other after a FailedDelete event.
   */
  async deletePod(namespace: string, podName: string, object: EventSubject): Promise<void> {
    try {
      await this.#client.coreV1().pods(namespace).delete(podName);
      this.#recorder.eventf(object, 'Normal', 'SuccessfulDelete', `Deleted pod: ${podName}`);
    } catch (err) {
      if (!isNotFound(err)) this.#recorder.eventf(object, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
      throw err;
    }
  }
}

/** What {@link createPodsWithExpectations} needs. */
export interface CreatePodsWithExpectationsOptions {
  /** Issues the creates. */
  podControl: RealPodControl;
  /** The owner's expectations. */
  expectations: UIDTrackingControllerExpectations;
  /** The owner's key in `expectations`. */
  key: string;
  /** How many pods to create. */
  count: number;
  /** The namespace of the pods. */
  namespace: string;
  /** The owner, as the events' involved object. */
  object: EventSubject;
  /** A new pod to create (called once per create). */
  newPod: () => Pod;
}

/**
 * Creates `count` pods in slow-start batches (the create half of ReplicaSet's manageReplicas and Job's
 * manageJob): the creations are expected before any create goes out, so one the informer sees before this
 * returns is not missed; every create that failed or was skipped is then marked observed, as it never will
 * be. A create refused because the namespace is terminating is not an error (it would fail for good); it
 * counts as issued, as upstream counts it, so its expectation waits for the timeout.
 * Throws the first error of the batch that failed.
 */
export async function createPodsWithExpectations(options: CreatePodsWithExpectationsOptions): Promise<void> {
  const { podControl, expectations, key, count, namespace, object, newPod } = options;
  expectations.expectCreations(key, count);
  const { successes, error } = await slowStartBatch(count, slowStartInitialBatchSize, async () => {
    try {
      await podControl.createPods(namespace, newPod(), object);
    } catch (err) {
      if (hasStatusCause(err, 'NamespaceTerminating')) return;
      throw err;
    }
  });
  for (let i = successes; i < count; i++) expectations.creationObserved(key);
  if (error !== undefined) throw asError(error);
}

/** What {@link deletePodsWithExpectations} needs. */
export interface DeletePodsWithExpectationsOptions {
  /** Issues the deletes. */
  podControl: RealPodControl;
  /** The owner's expectations. */
  expectations: UIDTrackingControllerExpectations;
  /** The owner's key in `expectations`. */
  key: string;
  /** The pods to delete (all in `namespace`). */
  pods: readonly Pod[];
  /** The namespace of the pods. */
  namespace: string;
  /** The owner, as the events' involved object. */
  object: EventSubject;
}

/**
 * Deletes `pods` in parallel (the delete half of ReplicaSet's manageReplicas and Job's manageJob): exactly
 * these deletions are expected (by pod key, so a pod seen deleted twice counts once); a pod already gone
 * is a deletion like any other (the informer sees it), any other failure is marked observed since it never
 * will be. Throws the first error once every delete has settled.
 */
export async function deletePodsWithExpectations(options: DeletePodsWithExpectationsOptions): Promise<void> {
  const { podControl, expectations, key, pods, namespace, object } = options;
  expectations.expectDeletionsOf(key, pods.map((p) => objectKey(p)));
  const results = await Promise.allSettled(
    pods.map(async (pod) => {
      try {
        await podControl.deletePod(namespace, pod.metadata?.name ?? '', object);
      } catch (err) {
        if (isNotFound(err)) return;
        expectations.deletionObservedOf(key, objectKey(pod));
        throw err;
      }
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw asError(failed.reason);
}
