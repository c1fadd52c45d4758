/**
 * The resource metrics API (`metrics.k8s.io/v1beta1`, served by metrics-server through API
 * aggregation in a real cluster): NodeMetrics and PodMetrics, read-only (get, list). It is served
 * once a test sets metrics — a fresh server has no metrics API, as a cluster without
 * metrics-server — and the values are whatever the test sets.
 */
import { apiVersionString, type ApiResource, type ResourceRegistry } from './resources.ts';
import type { Storage } from './storage.ts';
import { objectKey } from './handlers/scope.ts';

/** Resource usage as Quantity strings (`cpu: '250m'`, `memory: '64Mi'`). */
export type ResourceUsage = Record<string, string>;

/** One node's usage as a test sets it. */
export interface NodeMetricsInput {
  /** The node's name. */
  name: string;
  /** CPU and memory in use. */
  usage: ResourceUsage;
  /** RFC 3339 time of the sample (default: now). */
  timestamp?: string;
  /** Sampling window (default `'10.0s'`, metrics-server's). */
  window?: string;
}

/** One pod's usage, per container, as a test sets it. */
export interface PodMetricsInput {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  name: string;
  /** Usage per container. */
  containers: Array<{
    /** The container's name. */
    name: string;
    /** CPU and memory in use. */
    usage: ResourceUsage;
  }>;
  /** When the usage was measured (default: now). */
  timestamp?: string;
  /** Sampling window (default `'10.0s'`, metrics-server's). */
  window?: string;
}

const group = 'metrics.k8s.io';
const version = 'v1beta1';
// The name under which the metrics resources are registered next to CRD-defined ones.
const registration = 'v1beta1.metrics.k8s.io';

function resource(r: string, kind: string, namespaced: boolean): ApiResource {
  return {
    group,
    version,
    resource: r,
    singularName: '',
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['get', 'list'],
    subresources: [],
    hasStatus: false,
    hasScale: false,
    tracksGeneration: false,
    custom: false,
    printerColumns: [],
    selectableFields: [],
    // Served by an aggregated server (metrics-server), whose discovery gives no storage version hash.
    storageVersionHash: '',
  };
}

/** Keeps the metrics objects of one embedded server. */
export class MetricsApi {
  readonly #registry: ResourceRegistry;
  readonly #storage: Storage;
  readonly #now: () => string;
  #served = false;

  constructor(registry: ResourceRegistry, storage: Storage, now: () => string) {
    this.#registry = registry;
    this.#storage = storage;
    this.#now = now;
  }

  #serve(): void {
    if (this.#served) return;
    this.#served = true;
    this.#registry.setCustomResource(registration, [resource('nodes', 'NodeMetrics', false), resource('pods', 'PodMetrics', true)]);
  }

  #replace(store: string, items: ReadonlyArray<Record<string, unknown>>): void {
    const keep = new Set<string>();
    for (const obj of items) {
      const meta = obj['metadata'] as { name: string; namespace?: string };
      const key = objectKey(meta.namespace ?? '', meta.name);
      keep.add(key);
      this.#storage.write(store, key, this.#storage.get(store, key) === undefined ? 'ADDED' : 'MODIFIED', obj);
    }
    for (const s of this.#storage.listAt(store, this.#storage.revision)) {
      if (!keep.has(s.key)) this.#storage.write(store, s.key, 'DELETED', s.obj);
    }
  }

  /** Replaces every node's metrics. */
  setNodeMetrics(nodes: readonly NodeMetricsInput[]): void {
    this.#serve();
    const now = this.#now();
    this.#replace(
      `nodes.${group}`,
      nodes.map((n) => ({
        apiVersion: apiVersionString(group, version),
        kind: 'NodeMetrics',
        metadata: { name: n.name, creationTimestamp: now },
        timestamp: n.timestamp ?? now,
        window: n.window ?? '10.0s',
        usage: { ...n.usage },
      })),
    );
  }

  /** Replaces every pod's metrics. */
  setPodMetrics(pods: readonly PodMetricsInput[]): void {
    this.#serve();
    const now = this.#now();
    this.#replace(
      `pods.${group}`,
      pods.map((p) => ({
        apiVersion: apiVersionString(group, version),
        kind: 'PodMetrics',
        metadata: { name: p.name, namespace: p.namespace, creationTimestamp: now },
        timestamp: p.timestamp ?? now,
        window: p.window ?? '10.0s',
        containers: p.containers.map((c) => ({ name: c.name, usage: { ...c.usage } })),
      })),
    );
  }
}
