/**
 * The EndpointSlice controller (kubernetes/pkg/controller/endpointslice/endpointslice_controller.go and the
 * reconciler of staging/src/k8s.io/endpointslice), written on kubeloom's client-go layer: for every Service
 * with a selector, EndpointSlices (generateName `<service>-`, owned by the Service, labelled
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`
 * plus the Service's labels) hold one endpoint per pod with an IP — conditions ready (Ready and not
 * terminating), serving (Ready) and terminating, the node, the zone label of the node, a reference to the
 * pod — grouped by port set (each service port's targetPort resolved on the pod), at most 100 endpoints a
 * slice (--max-endpoints-per-slice), IPv4 or IPv6 by the pod IP's family.
 *
 * It runs only where the API server serves discovery.k8s.io/v1 EndpointSlices (checked by discovery when
 * it starts), as kube-controller-manager's would fail to sync otherwise.
 *
 * Left out: topology hints, the last-change-trigger-time annotation, the reconciler's placement heuristics
 * that keep slices full with few writes (slices here are rewritten to the desired grouping), mirroring of
 * custom Endpoints (the endpointslicemirroring controller).
 */
import type { Node, Pod, Service } from '../../api/core/v1.ts';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/discovery/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { selectorFromSet } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { enqueueForObject, objectOf } from '../../controller/enqueue.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, isPodReady, newControllerRef, pruneZero } from '../controller-utils.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import { findPort } from '../endpoint/endpoints-controller.ts';

/** The label naming a slice's Service (discovery.LabelServiceName). */
export const serviceNameLabel = 'kubernetes.io/service-name';
/** The label naming a slice's manager (discovery.LabelManagedBy). */
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
/** This controller's value of {@link managedByLabel}. */
export const managedByValue = 'endpointslice-controller.k8s.io';
/** --max-endpoints-per-slice default. */
export const maxEndpointsPerSlice = 100;

/** The slices a Service should have: address type, ports and endpoints (no names, no metadata). */
export interface DesiredSlice {
  /** IPv4 or IPv6. */
  addressType: string;
  /** The ports, sorted by name. */
  ports: EndpointPort[];
  /** The endpoints, sorted by address. */
  endpoints: Endpoint[];
}

/** The slices of endpoints for a Service's pods (the reconciler's desired state, chunked by {@link maxEndpointsPerSlice}). */
export function desiredSlices(svc: Service, pods: readonly Pod[], nodes: ReadonlyMap<string, Node>): DesiredSlice[] {
  const groups = new Map<string, DesiredSlice>();
  for (const pod of pods) {
    const ip = pod.status?.podIP ?? '';
    const phase = pod.status?.phase;
    if (ip === '' || phase === 'Succeeded' || phase === 'Failed') continue;
    // Terminating pods stay, with their conditions saying so (ShouldPodBeInEndpoints with includeTerminating).
    const terminating = pod.metadata?.deletionTimestamp !== undefined;
    const ports: EndpointPort[] = [];
    for (const sp of svc.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol === undefined ? {} : { appProtocol: sp.appProtocol }) });
    }
    ports.sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : 0));
    const addressType = ip.includes(':') ? 'IPv6' : 'IPv4';
    const key = `${addressType}/${canonicalJson(ports)}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { addressType, ports, endpoints: [] }));
    const ready = isPodReady(pod);
    const nodeName = pod.spec?.nodeName;
    const zone = nodeName === undefined ? undefined : nodes.get(nodeName)?.metadata?.labels?.['topology.kubernetes.io/zone'];
    g.endpoints.push({
      addresses: [ip],
      conditions: { ready: (ready || svc.spec?.publishNotReadyAddresses === true) && !terminating, serving: ready || svc.spec?.publishNotReadyAddresses === true, terminating },
      ...(pod.spec?.hostname !== undefined && pod.spec.subdomain === svc.metadata?.name ? { hostname: pod.spec.hostname } : {}),
      ...(nodeName === undefined ? {} : { nodeName }),
      ...(zone === undefined ? {} : { zone }),
      targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
    });
  }
  const out: DesiredSlice[] = [];
  for (const g of groups.values()) {
    g.endpoints.sort((a, b) => (a.addresses[0]! < b.addresses[0]! ? -1 : a.addresses[0]! > b.addresses[0]! ? 1 : 0));
    for (let i = 0; i < g.endpoints.length; i += maxEndpointsPerSlice) out.push({ ...g, endpoints: g.endpoints.slice(i, i + maxEndpointsPerSlice) });
  }
  return out;
}

/** The EndpointSlice controller; see the file comment. */
export class EndpointSliceController {
  /** The queue and its workers (made once the resource is known to be served). */
  controller: Controller | undefined;
  readonly #ctx: ControllerContext;
  readonly #workers: number;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    // kube-controller-manager's --concurrent-service-endpoint-syncs default.
    this.#workers = options.workers ?? 5;
  }

  /** Checks that EndpointSlices are served, then runs the workers until `signal` aborts. */
  async run(options: { signal: AbortSignal }): Promise<void> {
    try {
      const list = await this.#ctx.client.discovery().serverResourcesForGroupVersion('discovery.k8s.io/v1');
      if (!list.resources.some((r) => r.name === 'endpointslices')) return;
    } catch {
      // Not served (a 404, or a group version discovery does not list): nothing to do on this server.
      return;
    }
    if (options.signal.aborted) return;
    const f = this.#ctx.informerFactory;
    const services = f.coreV1().services();
    const pods = f.coreV1().pods();
    const nodes = f.coreV1().nodes();
    const slices = f.discoveryV1().endpointSlices();
    const controller = newSyncController(this.#ctx, {
      name: 'endpoint_slice',
      errorName: 'endpointslice',
      informers: [services.informer(), pods.informer(), nodes.informer(), slices.informer()],
      workers: this.#workers,
      reconcile: (key) => this.#syncService(key),
    });
    this.controller = controller;
    services.informer().addEventHandler(enqueueForObject(controller));
    const onPod = (pod: Pod | undefined): void => {
      if (pod === undefined) return;
      for (const svc of services.lister().namespace(pod.metadata?.namespace ?? '').list()) {
        if (svc.spec?.selector !== undefined && selectorFromSet(svc.spec.selector).matches(pod.metadata?.labels ?? {})) controller.add(objectKey(svc));
      }
    };
    pods.informer().addEventHandler({
      onAdd: onPod,
      onUpdate: (old, pod) => {
        onPod(old);
        onPod(pod);
      },
      onDelete: (obj) => onPod(objectOf(obj)),
    });
    slices.informer().addEventHandler({
      onAdd: () => undefined,
      onUpdate: () => undefined,
      onDelete: (obj) => {
        const s = objectOf(obj);
        const name = s?.metadata?.labels?.[serviceNameLabel];
        if (s !== undefined && name !== undefined) controller.add(`${s.metadata?.namespace ?? ''}/${name}`);
      },
    });
    // The informers added now start with the factory's others.
    f.start({ signal: options.signal });
    const listers = { services: services.lister(), pods: pods.lister(), nodes: nodes.lister(), slices: slices.lister() };
    this.#listers = listers;
    await controller.run(options);
  }

  #listers: { services: Lister<Service>; pods: Lister<Pod>; nodes: Lister<Node>; slices: Lister<EndpointSlice> } | undefined;

  /** Makes the Service's slices hold its desired endpoints (syncService). */
  async #syncService(key: string): Promise<void> {
    const l = this.#listers;
    if (l === undefined) return;
    const { namespace, name } = splitMetaNamespaceKey(key);
    const client = this.#ctx.client.discoveryV1().endpointSlices(namespace);
    const existing = l.slices
      .namespace(namespace)
      .list()
      .filter((s) => s.metadata?.labels?.[serviceNameLabel] === name && s.metadata.labels[managedByLabel] === managedByValue);
    let svc: Service | undefined;
    try {
      svc = l.services.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (svc === undefined || svc.spec?.selector === undefined || svc.spec.type === 'ExternalName') {
      // The Service went (the garbage collector takes owned slices too) or lost its selector.
      if (svc !== undefined) for (const s of existing) await deleteSlice(client, s);
      return;
    }
    const pods = l.pods.namespace(namespace).list(selectorFromSet(svc.spec.selector));
    const nodes = new Map(l.nodes.list().map((n) => [n.metadata?.name ?? '', n]));
    const desired = desiredSlices(svc, pods, nodes);
    // With no endpoints, one empty slice per address family stays (as upstream keeps a placeholder).
    if (desired.length === 0) desired.push({ addressType: 'IPv4', ports: [], endpoints: [] });
    const labels: Record<string, string> = { ...svc.metadata?.labels, [serviceNameLabel]: name, [managedByLabel]: managedByValue };
    if (svc.spec.clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
    const unused = [...existing];
    for (const d of desired) {
      // Reuse a slice of the same address type and ports, else one of the same address type.
      const i = Math.max(unused.findIndex((s) => s.addressType === d.addressType && canonicalJson(s.ports ?? []) === canonicalJson(d.ports)), unused.findIndex((s) => s.addressType === d.addressType));
      const reuse = i >= 0 ? unused.splice(i, 1)[0] : undefined;
      const next: EndpointSlice = {
        ...reuse,
        metadata: { ...(reuse?.metadata ?? { generateName: `${name}-`, ownerReferences: [newControllerRef(svc, 'v1', 'Service')] }), labels },
        addressType: d.addressType,
        endpoints: d.endpoints,
        ports: d.ports,
      };
      if (reuse === undefined) await client.create(next);
      else if (canonicalJson(pruneZero({ e: reuse.endpoints, p: reuse.ports, l: reuse.metadata?.labels })) !== canonicalJson(pruneZero({ e: next.endpoints, p: next.ports, l: labels }))) await client.update(next);
    }
    for (const s of unused) await deleteSlice(client, s);
  }
}

async function deleteSlice(client: { delete(name: string): Promise<unknown> }, s: EndpointSlice): Promise<void> {
  try {
    await client.delete(s.metadata?.name ?? '');
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
