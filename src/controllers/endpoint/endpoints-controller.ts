/**
 * The Endpoints controller (kubernetes/pkg/controller/endpoint/endpoints_controller.go, with
 * pkg/api/v1/endpoints RepackSubsets and podutil.FindPort), written as kube-controller-manager writes it,
 * on kubeloom's client-go layer: shared informers for Services and Pods, a rate-limited queue, and one
 * {@link EndpointsController.syncService} that lists the pods a Service's selector matches and writes the
 * Endpoints object of the same name: each pod with an IP becomes an address (ready, or not-ready unless
 * publishNotReadyAddresses) with its node and a reference to the pod; each service port resolves its
 * targetPort (a number, or a container port's name); subsets are grouped by port set and sorted. The
 * Endpoints carry the Service's labels, plus `service.kubernetes.io/headless` for a headless Service.
 * A Service without a selector is left alone (its Endpoints are the user's); a deleted Service's
 * Endpoints are deleted.
 *
 * Left out: the `endpoints.kubernetes.io/last-change-trigger-time` annotation (the trigger-time tracker),
 * the 1000-address truncation (`endpoints.kubernetes.io/over-capacity`), and the periodic full resync.
 */
import type { EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Pod, Service, ServicePort } from '../../api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.ts';
import { selectorFromSet } from '../../apimachinery/labels.ts';
import { keyOf, objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { enqueueForObject, objectOf } from '../../controller/enqueue.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, isPodReady, pruneZero } from '../controller-utils.ts';

/** The label a headless Service's Endpoints carry (v1.IsHeadlessService). */
export const headlessServiceLabel = 'service.kubernetes.io/headless';

/** Whether a pod is an endpoint at all (podutil.ShouldPodBeInEndpoints): it has an IP and may serve. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if ((pod.status?.podIP ?? '') === '') return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp !== undefined) return false;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  return true;
}

/** The port a service port targets on a pod (podutil.FindPort): a number, or the named container port. */
export function findPort(pod: Pod, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP')) return p.containerPort;
  }
  return undefined;
}

function ipOrder(a: EndpointAddress, b: EndpointAddress): number {
  // Upstream sorts addresses by IP as a string, then by target UID.
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? '';
  const ub = b.targetRef?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * Groups address/port pairs into subsets with the same ports, addresses sorted by IP, ports by name and
 * number, subsets by their first address (endpoints.RepackSubsets).
 */
export function repackSubsets(entries: readonly { address: EndpointAddress; ready: boolean; ports: EndpointPort[] }[]): EndpointSubset[] {
  const bySet = new Map<string, { ports: EndpointPort[]; ready: Map<string, EndpointAddress>; notReady: Map<string, EndpointAddress> }>();
  for (const e of entries) {
    const ports = [...e.ports].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : a.port - b.port));
    const key = canonicalJson(ports);
    let set = bySet.get(key);
    if (set === undefined) bySet.set(key, (set = { ports, ready: new Map(), notReady: new Map() }));
    const addrKey = `${e.address.ip}/${e.address.targetRef?.uid ?? ''}`;
    (e.ready ? set.ready : set.notReady).set(addrKey, e.address);
  }
  const subsets: EndpointSubset[] = [];
  for (const { ports, ready, notReady } of bySet.values()) {
    // An address ready on one entry is ready (upstream keeps the ready one).
    for (const k of ready.keys()) notReady.delete(k);
    const subset: EndpointSubset = {};
    if (ready.size > 0) subset.addresses = [...ready.values()].sort(ipOrder);
    if (notReady.size > 0) subset.notReadyAddresses = [...notReady.values()].sort(ipOrder);
    if (ports.length > 0) subset.ports = ports;
    subsets.push(subset);
  }
  const first = (s: EndpointSubset): string => (s.addresses ?? s.notReadyAddresses ?? [])[0]?.ip ?? '';
  return subsets.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
}

/** The Endpoints controller; see the file comment. */
export class EndpointsController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #serviceLister: Lister<Service>;
  readonly #podLister: Lister<Pod>;
  readonly #endpointsLister: Lister<Endpoints>;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    const services = ctx.informerFactory.coreV1().services();
    const pods = ctx.informerFactory.coreV1().pods();
    const endpoints = ctx.informerFactory.coreV1().endpoints();
    this.#serviceLister = services.lister();
    this.#podLister = pods.lister();
    this.#endpointsLister = endpoints.lister();
    this.controller = newSyncController(ctx, {
      name: 'endpoint',
      informers: [services.informer(), pods.informer(), endpoints.informer()],
      // kube-controller-manager's --concurrent-endpoint-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncService(key),
    });
    services.informer().addEventHandler(enqueueForObject(this.controller));
    const onPod = (pod: Pod): void => {
      for (const svc of this.#servicesFor(pod)) this.controller.add(objectKey(svc));
    };
    pods.informer().addEventHandler({
      onAdd: onPod,
      onUpdate: (old, pod) => {
        if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
        // A relabelled pod may leave Services the new labels no longer select.
        onPod(old);
        onPod(pod);
      },
      onDelete: (obj) => {
        const pod = objectOf(obj);
        if (pod !== undefined) onPod(pod);
      },
    });
    endpoints.informer().addEventHandler({
      onAdd: () => undefined,
      onUpdate: () => undefined,
      // Endpoints deleted by someone else come back while their Service selects pods.
      onDelete: (obj) => {
        const ep = objectOf(obj);
        if (ep !== undefined) this.controller.add(objectKey(ep));
      },
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Services with a selector matching the pod (GetPodServiceMemberships). */
  #servicesFor(pod: Pod): Service[] {
    const labels = pod.metadata?.labels ?? {};
    return this.#serviceLister
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((s) => s.spec?.selector !== undefined && selectorFromSet(s.spec.selector).matches(labels));
  }

  /** Writes the Endpoints of the Service `key` (syncService). Exposed for tests. */
  async syncService(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const client = this.#ctx.client.coreV1().endpoints(namespace);
    let svc: Service;
    try {
      svc = this.#serviceLister.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Service is gone: so are its Endpoints.
      try {
        await client.delete(name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    if (svc.spec?.type === 'ExternalName' || svc.spec?.selector === undefined) return;
    const selector = selectorFromSet(svc.spec.selector);
    const publishNotReady = svc.spec.publishNotReadyAddresses === true;
    const entries: { address: EndpointAddress; ready: boolean; ports: EndpointPort[] }[] = [];
    for (const pod of this.#podLister.namespace(namespace).list(selector)) {
      if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
      const address: EndpointAddress = {
        ip: pod.status?.podIP ?? '',
        ...(pod.spec?.nodeName === undefined ? {} : { nodeName: pod.spec.nodeName }),
        targetRef: { kind: 'Pod', namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      };
      if (pod.spec?.hostname !== undefined && pod.spec.subdomain === name && svc.spec.clusterIP === 'None') address.hostname = pod.spec.hostname;
      const ready = publishNotReady || isPodReady(pod);
      const servicePorts = svc.spec.ports ?? [];
      if (servicePorts.length === 0) {
        // A headless Service without ports: addresses only.
        if (svc.spec.clusterIP === 'None') entries.push({ address, ready, ports: [] });
        continue;
      }
      for (const sp of servicePorts) {
        const port = findPort(pod, sp);
        if (port === undefined) continue;
        entries.push({ address, ready, ports: [{ ...(sp.name === undefined || sp.name === '' ? {} : { name: sp.name }), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol === undefined ? {} : { appProtocol: sp.appProtocol }) }] });
      }
    }
    const subsets = repackSubsets(entries);
    const labels: Record<string, string> = { ...svc.metadata?.labels };
    if (svc.spec.clusterIP === 'None') labels[headlessServiceLabel] = '';
    let current: Endpoints | undefined;
    try {
      current = this.#endpointsLister.namespace(namespace).get(name);
    } catch {
      current = undefined;
    }
    if (current !== undefined && canonicalJson(pruneZero(current.subsets ?? [])) === canonicalJson(pruneZero(subsets)) && canonicalJson(current.metadata?.labels ?? {}) === canonicalJson(labels)) return;
    const next: Endpoints = {
      ...current,
      metadata: { ...current?.metadata, name, namespace, ...(Object.keys(labels).length === 0 ? {} : { labels }) },
      subsets,
    };
    if (Object.keys(labels).length === 0 && next.metadata !== undefined) delete next.metadata.labels;
    if (current === undefined) {
      try {
        await client.create(next);
      } catch (err) {
        // Made meanwhile (the API server's own for default/kubernetes, or an earlier create our cache has not seen).
        if (!isAlreadyExists(err)) throw err;
        this.controller.addAfter(keyOf(namespace, name), 100);
      }
    } else {
      await client.update(next);
    }
  }
}
