/**
 * The ServiceAccounts controller (kubernetes/pkg/controller/serviceaccount/serviceaccounts_controller.go):
 * every active namespace has a ServiceAccount named `default`. Namespaces and ServiceAccounts are watched;
 * a namespace that appears, becomes active again or loses its `default` ServiceAccount is synced, and a
 * missing one is created. A namespace being deleted is left alone (creates there are refused anyway).
 */
import type { Namespace, ServiceAccount } from '../../api/core/v1.ts';
import { isAlreadyExists, isForbidden } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { enqueueNamespace, getActiveNamespace } from '../controller-utils.ts';

/** The ServiceAccounts every namespace gets (upstream DefaultServiceAccountsControllerOptions). */
export const defaultServiceAccounts: readonly string[] = ['default'];

/** The ServiceAccounts controller; see the file comment. */
export class ServiceAccountsController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #namespaces: Lister<Namespace>;
  readonly #serviceAccounts: Lister<ServiceAccount>;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    const namespaces = ctx.informerFactory.coreV1().namespaces();
    const serviceAccounts = ctx.informerFactory.coreV1().serviceAccounts();
    this.#namespaces = namespaces.lister();
    this.#serviceAccounts = serviceAccounts.lister();
    this.controller = newSyncController(ctx, {
      name: 'serviceaccount',
      informers: [namespaces.informer(), serviceAccounts.informer()],
      // kube-controller-manager's --concurrent-serviceaccount-token-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncNamespace(key),
    });
    namespaces.informer().addEventHandler(enqueueNamespace(this.controller));
    serviceAccounts.informer().addEventHandler({
      onAdd: () => undefined,
      onUpdate: () => undefined,
      onDelete: (obj) => {
        const sa = objectOf(obj);
        if (sa !== undefined && defaultServiceAccounts.includes(sa.metadata?.name ?? '')) this.controller.add(sa.metadata?.namespace ?? '');
      },
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Creates the namespace's missing default ServiceAccounts (syncNamespace). Exposed for tests. */
  async syncNamespace(name: string): Promise<void> {
    if (getActiveNamespace(this.#namespaces, name) === undefined) return;
    for (const sa of defaultServiceAccounts) {
      try {
        this.#serviceAccounts.namespace(name).get(sa);
        continue;
      } catch {
        // missing: create it
      }
      try {
        await this.#ctx.client.coreV1().serviceAccounts(name).create({ metadata: { name: sa } });
      } catch (err) {
        // Made meanwhile, or the namespace started terminating.
        if (isAlreadyExists(err) || isForbidden(err)) continue;
        throw err;
      }
    }
  }
}
