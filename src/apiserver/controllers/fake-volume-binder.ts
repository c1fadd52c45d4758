/**
 * A stand-in for dynamic volume provisioning and binding, so that PersistentVolumeClaims — a
 * StatefulSet's volumeClaimTemplates among them — become Bound without storage: kind's default
 * StorageClass (`standard`, marked default with storageclass.kubernetes.io/is-default-class, binding mode
 * WaitForFirstConsumer) and, for every Pending claim of a class it provisions, a PersistentVolume made
 * and bound as the external provisioner and kube-controller-manager's PV controller
 * (pkg/controller/volume/persistentvolume/pv_controller.go) make and bind it: the PV `pvc-<claim uid>`
 * with the claim's size and access modes, claimRef and phase Bound; the claim with volumeName, the
 * bind-completed and bound-by-controller annotations and phase Bound.
 *
 * A claim without a class gets the default one (the PV controller's retroactive default StorageClass
 * assignment); a claim of class "" or of a class it does not provision stays Pending. In
 * WaitForFirstConsumer mode a claim is provisioned once a pod using it is scheduled, on that pod's node
 * (the scheduler's volume binding sets volume.kubernetes.io/selected-node; the PV gets node affinity to
 * it). Deleting a claim deletes its PV (reclaim policy Delete; no kubernetes.io/pv-protection finalizer, as
 * no controller here would remove it). No static binding of pre-made PVs, no
 * capacity, no attach/detach: the kubelet stand-in only waits for the claims to be Bound.
 */
import type { PersistentVolumeClaim, Pod } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { isObject } from '../object-meta.ts';
import { storageKey } from '../resources.ts';
import type { ServerController } from './controller.ts';
import type { LoopbackClient } from './loopback-client.ts';
import { QueueWorker } from './queue-worker.ts';

type Obj = Record<string, unknown>;

/** The default StorageClass's name (kind's). */
export const defaultStorageClassName = 'standard';
/** The provisioner the stand-in serves. */
export const fakeProvisioner = 'kubeloom.io/fake-provisioner';
/** The annotation marking the default StorageClass (storage/v1 util, IsDefaultStorageClassAnnotation). */
export const isDefaultClassAnnotation = 'storageclass.kubernetes.io/is-default-class';
/** The annotation naming the node a WaitForFirstConsumer claim is provisioned on. */
export const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';

/** The default StorageClass: kind's `standard`, default, WaitForFirstConsumer, reclaim Delete. */
export function defaultStorageClass(): Record<string, unknown> {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: defaultStorageClassName, annotations: { [isDefaultClassAnnotation]: 'true' } },
    provisioner: fakeProvisioner,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** The volume binder stand-in; see the file comment. */
export class FakeVolumeBinder implements ServerController {
  readonly #client: LoopbackClient;
  readonly #worker: QueueWorker<string>;
  readonly #unsubscribe: (() => void)[] = [];
  // Claim key → the node of a scheduled pod using it (WaitForFirstConsumer).
  readonly #consumerNode = new Map<string, string>();

  constructor(options: { client: LoopbackClient; clock: Clock; onError: (error: unknown) => void }) {
    this.#client = options.client;
    this.#worker = new QueueWorker<string>({ clock: options.clock, process: (key) => this.#sync(key), onError: (err) => options.onError(err), trace: { controller: 'persistentvolume-binder' } });
  }

  start(): void {
    const classes = this.#client.resourceFor('storage.k8s.io/v1', 'StorageClass');
    if (this.#client.get(classes, '', defaultStorageClassName) === undefined) this.#client.create(classes, '', defaultStorageClass());
    const storage = this.#client.scope.storage;
    this.#unsubscribe.push(
      storage.subscribe('persistentvolumeclaims', (c) => {
        if (c.type === 'DELETED') this.#released(c.key, c.object.obj as PersistentVolumeClaim);
        else if ((c.object.obj as PersistentVolumeClaim).status?.phase !== 'Bound') this.#worker.queue.add(c.key);
      }),
      storage.subscribe('pods', (c) => {
        if (c.type !== 'DELETED') this.#podChanged(c.object.obj as Pod);
      }),
    );
    for (const s of storage.listAt('pods', storage.revision)) this.#podChanged(s.obj as Pod);
    for (const s of storage.listAt('persistentvolumeclaims', storage.revision)) if ((s.obj as PersistentVolumeClaim).status?.phase !== 'Bound') this.#worker.queue.add(s.key);
    this.#worker.start();
  }

  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    await this.#worker.stop();
  }

  idle(): boolean {
    return this.#worker.idle();
  }

  /** A scheduled pod's claims may now be provisioned on its node. */
  #podChanged(pod: Pod): void {
    const node = pod.spec?.nodeName ?? '';
    if (node === '') return;
    const namespace = pod.metadata?.namespace ?? '';
    for (const v of pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim === undefined) continue;
      const key = `${namespace}/${claim}`;
      if (this.#consumerNode.has(key)) continue;
      this.#consumerNode.set(key, node);
      this.#worker.queue.add(key);
    }
  }

  /** Reclaim policy Delete: the claim's dynamically provisioned volume goes with it. */
  #released(key: string, claim: PersistentVolumeClaim): void {
    this.#consumerNode.delete(key);
    const volume = claim.spec?.volumeName;
    if (volume === undefined || volume === '') return;
    const pvs = this.#client.resourceFor('v1', 'PersistentVolume');
    const pv = this.#client.get(pvs, '', volume);
    if (pv === undefined || !isObject(pv.spec) || pv.spec.persistentVolumeReclaimPolicy !== 'Delete') return;
    try {
      this.#client.delete(pvs, '', volume, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  #sync(key: string): void {
    const claim = this.#client.scope.storage.get('persistentvolumeclaims', key)?.obj as PersistentVolumeClaim | undefined;
    if (claim === undefined || claim.status?.phase === 'Bound' || claim.metadata?.deletionTimestamp !== undefined) return;
    const namespace = claim.metadata?.namespace ?? '';
    const name = claim.metadata?.name ?? '';
    const claims = this.#client.resourceFor('v1', 'PersistentVolumeClaim');
    let className = claim.spec?.storageClassName;
    if (className === undefined || className === null) {
      // Retroactive default StorageClass assignment (pv_controller.go, assignDefaultStorageClass).
      const defaultClass = this.#defaultClass();
      if (defaultClass === undefined) return;
      className = defaultClass;
      this.#client.update(claims, namespace, name, (o) => ({ ...o, spec: { ...(isObject(o.spec) ? o.spec : {}), storageClassName: defaultClass } }));
    }
    if (className === '') return;
    const sc = this.#client.get(this.#client.resourceFor('storage.k8s.io/v1', 'StorageClass'), '', className);
    if (sc === undefined || sc.provisioner !== fakeProvisioner) return;
    const waitForConsumer = sc.volumeBindingMode === 'WaitForFirstConsumer';
    const node = this.#consumerNode.get(key);
    if (waitForConsumer && node === undefined) return;
    this.#provision(claim, className, sc, waitForConsumer ? node : undefined);
  }

  /** The class marked default (the newest, when several are, as the DefaultStorageClass admission plugin picks). */
  #defaultClass(): string | undefined {
    const storage = this.#client.scope.storage;
    let best: { name: string; created: string } | undefined;
    for (const s of storage.listAt(storageKey('storage.k8s.io', 'storageclasses'), storage.revision)) {
      const meta = s.obj.metadata as Obj;
      const annotations = isObject(meta.annotations) ? meta.annotations : {};
      if (annotations[isDefaultClassAnnotation] !== 'true') continue;
      const created = typeof meta.creationTimestamp === 'string' ? meta.creationTimestamp : '';
      if (best === undefined || created > best.created) best = { name: String(meta.name), created };
    }
    return best?.name;
  }

  #provision(claim: PersistentVolumeClaim, className: string, sc: Obj, node: string | undefined): void {
    const namespace = claim.metadata?.namespace ?? '';
    const name = claim.metadata?.name ?? '';
    const uid = claim.metadata?.uid ?? '';
    const pvName = `pvc-${uid}`;
    const size = claim.spec?.resources?.requests?.storage ?? '1Gi';
    const accessModes = claim.spec?.accessModes ?? ['ReadWriteOnce'];
    const pvs = this.#client.resourceFor('v1', 'PersistentVolume');
    const claims = this.#client.resourceFor('v1', 'PersistentVolumeClaim');
    if (this.#client.get(pvs, '', pvName) === undefined) {
      this.#client.create(pvs, '', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': fakeProvisioner }},
        spec: {
          accessModes,
          capacity: { storage: size },
          claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid, resourceVersion: claim.metadata?.resourceVersion },
          hostPath: { path: `/var/local-path-provisioner/${pvName}_${namespace}_${name}`, type: 'DirectoryOrCreate' },
          persistentVolumeReclaimPolicy: typeof sc.reclaimPolicy === 'string' ? sc.reclaimPolicy : 'Delete',
          storageClassName: className,
          volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
          ...(node === undefined
            ? {}
            : { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } }),
        },
      });
    }
    this.#client.update(pvs, '', pvName, (o) => (isObject(o.status) && o.status.phase === 'Bound' ? undefined : { ...o, status: { phase: 'Bound' } }), 'status');
    this.#client.update(claims, namespace, name, (o) => {
      const meta = isObject(o.metadata) ? o.metadata : {};
      const annotations: Obj = {
        ...(isObject(meta.annotations) ? meta.annotations : {}),
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
        'volume.beta.kubernetes.io/storage-provisioner': fakeProvisioner,
        'volume.kubernetes.io/storage-provisioner': fakeProvisioner,
        ...(node === undefined ? {} : { [selectedNodeAnnotation]: node }),
      };
      return { ...o, metadata: { ...meta, annotations }, spec: { ...(isObject(o.spec) ? o.spec : {}), volumeName: pvName } };
    });
    this.#client.update(claims, namespace, name, (o) => ({ ...o, status: { ...(isObject(o.status) ? o.status : {}), phase: 'Bound', accessModes, capacity: { storage: size } } }), 'status');
  }
}
