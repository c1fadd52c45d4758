/**
 * The root CA certificate publisher (kubernetes/pkg/controller/certificates/rootcacertpublisher/publisher.go):
 * every active namespace holds a ConfigMap `kube-root-ca.crt` with the cluster's root CA in `ca.crt`, for
 * pods to verify the API server. A missing one is created, a changed one put back (other fields kept).
 * The CA is kube-controller-manager's `--root-ca-file`, else its client config's CA data — here the
 * RestConfig's, which is empty for a plain-HTTP embedded server (the ConfigMap then carries an empty
 * `ca.crt`, as upstream would with empty CA data).
 */
import type { ConfigMap, Namespace } from '../../api/core/v1.ts';
import { isAlreadyExists, isForbidden } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { enqueueNamespace, getActiveNamespace } from '../controller-utils.ts';

/** The ConfigMap's name (RootCACertConfigMapName). */
export const rootCACertConfigMapName = 'kube-root-ca.crt';
/** Its annotation (DescriptionAnnotation), as upstream writes it. */
export const rootCACertDescription =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** The root CA publisher; see the file comment. */
export class RootCACertPublisher {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #rootCA: string;
  readonly #namespaces: Lister<Namespace>;
  readonly #configMaps: Lister<ConfigMap>;

  constructor(ctx: ControllerContext, options: { rootCA: string; workers?: number }) {
    this.#ctx = ctx;
    this.#rootCA = options.rootCA;
    const namespaces = ctx.informerFactory.coreV1().namespaces();
    const configMaps = ctx.informerFactory.coreV1().configMaps();
    this.#namespaces = namespaces.lister();
    this.#configMaps = configMaps.lister();
    this.controller = newSyncController(ctx, {
      name: 'root_ca_cert_publisher',
      errorName: 'root-ca-cert-publisher',
      informers: [namespaces.informer(), configMaps.informer()],
      // kube-controller-manager's --concurrent-rootcacertpublisher-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncNamespace(key),
    });
    namespaces.informer().addEventHandler(enqueueNamespace(this.controller));
    const onConfigMap = (obj: ConfigMap | undefined): void => {
      if (obj?.metadata?.name === rootCACertConfigMapName) this.controller.add(obj.metadata.namespace ?? '');
    };
    configMaps.informer().addEventHandler({ onAdd: () => undefined, onUpdate: (_o, cm) => onConfigMap(cm), onDelete: (obj) => onConfigMap(objectOf(obj)) });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Creates or restores the namespace's kube-root-ca.crt (syncNamespace). Exposed for tests. */
  async syncNamespace(name: string): Promise<void> {
    if (getActiveNamespace(this.#namespaces, name) === undefined) return;
    const client = this.#ctx.client.coreV1().configMaps(name);
    let current: ConfigMap | undefined;
    try {
      current = this.#configMaps.namespace(name).get(rootCACertConfigMapName);
    } catch {
      current = undefined;
    }
    const data = { 'ca.crt': this.#rootCA };
    if (current === undefined) {
      try {
        await client.create({ metadata: { name: rootCACertConfigMapName, annotations: { 'kubernetes.io/description': rootCACertDescription } }, data });
      } catch (err) {
        if (isAlreadyExists(err) || isForbidden(err)) return;
        throw err;
      }
      return;
    }
    const same = JSON.stringify(current.data ?? {}) === JSON.stringify(data) && current.metadata?.annotations?.['kubernetes.io/description'] === rootCACertDescription;
    if (same) return;
    await client.update({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata?.annotations, 'kubernetes.io/description': rootCACertDescription } }, data });
  }
}
