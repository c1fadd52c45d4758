/**
 * The typed metrics client (k8s.io/metrics `pkg/client/clientset/versioned/typed/metrics/v1beta1`):
 * get and list of NodeMetrics and PodMetrics, plus `top` summaries as `kubectl top node` and
 * `kubectl top pod` print them (kubectl `pkg/cmd/top`, `pkg/metricsutil/metrics_printer.go`).
 */
import type { Node } from '../api/core/v1.ts';
import type { RestClient } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import type { ListOptions } from '../apimachinery/options.ts';
import { milliValue, value } from './quantity.ts';
import type { NodeMetrics, PodMetrics } from './types.ts';

/** The metrics API group and version. */
export const metricsGroupVersion = {
  /** `metrics.k8s.io`. */
  group: 'metrics.k8s.io',
  /** `v1beta1`. */
  version: 'v1beta1',
} as const;

/** One row of `kubectl top node`. */
export interface NodeTop {
  /** The node's name. */
  name: string;
  /** CPU usage in millicores. */
  cpuMillicores: number;
  /** Memory working set in bytes. */
  memoryBytes: number;
  /** Usage as a percentage of the node's allocatable, when the node object is known. */
  cpuPercent?: number;
  /** Memory usage as a percentage of the node's allocatable, when the node object is known. */
  memoryPercent?: number;
}

/** One row of `kubectl top pod` (summed over containers), with the per-container figures. */
export interface PodTop {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  name: string;
  /** CPU usage in millicores, summed over containers. */
  cpuMillicores: number;
  /** Memory working set in bytes, summed over containers. */
  memoryBytes: number;
  /** The per-container figures. */
  containers: Array<{
    /** The container's name. */
    name: string;
    /** CPU usage in millicores. */
    cpuMillicores: number;
    /** Memory working set in bytes. */
    memoryBytes: number;
  }>;
}

/** Reads metrics.k8s.io (metricsv1beta1.MetricsV1beta1Client). */
export class MetricsClient {
  /** The client requests go through. */
  readonly rest: RestClient;

  constructor(rest: RestClient) {
    this.rest = rest;
  }

  /** NodeMetrics (cluster-scoped). */
  nodeMetricses(): ResourceClient<NodeMetrics> {
    return new ResourceClient<NodeMetrics>(this.rest, { ...metricsGroupVersion, resource: 'nodes', kind: 'NodeMetrics', namespaced: false });
  }

  /** PodMetrics of one namespace, or of all with '' (the default). */
  podMetricses(namespace = ''): ResourceClient<PodMetrics> {
    return new ResourceClient<PodMetrics>(this.rest, { ...metricsGroupVersion, resource: 'pods', kind: 'PodMetrics', namespaced: true, namespace });
  }

  /**
   * `kubectl top node`: usage per node, sorted by name, with percentages of allocatable for nodes
   * that exist as Node objects.
   */
  async topNodes(options: ListOptions = {}): Promise<NodeTop[]> {
    const metrics = await this.nodeMetricses().list(options);
    const nodes = await new ResourceClient<Node>(this.rest, { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false }).list(options);
    const allocatable = new Map(nodes.items.map((n) => [n.metadata?.name ?? '', n.status?.allocatable ?? {}]));
    return metrics.items
      .map((m) => {
        const name = m.metadata?.name ?? '';
        const row: NodeTop = { name, cpuMillicores: milliValue(m.usage['cpu'] ?? '0'), memoryBytes: value(m.usage['memory'] ?? '0') };
        const a = allocatable.get(name);
        if (a?.['cpu'] !== undefined && milliValue(a['cpu']) > 0) row.cpuPercent = Math.floor((row.cpuMillicores * 100) / milliValue(a['cpu']));
        if (a?.['memory'] !== undefined && value(a['memory']) > 0) row.memoryPercent = Math.floor((row.memoryBytes * 100) / value(a['memory']));
        return row;
      })
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /** `kubectl top pod`: usage per pod of `namespace` ('' = all), summed over containers, sorted by namespace and name. */
  async topPods(namespace = '', options: ListOptions = {}): Promise<PodTop[]> {
    const metrics = await this.podMetricses(namespace).list(options);
    return metrics.items
      .map((m) => {
        const containers = m.containers.map((c) => ({ name: c.name, cpuMillicores: milliValue(c.usage['cpu'] ?? '0'), memoryBytes: value(c.usage['memory'] ?? '0') }));
        return {
          namespace: m.metadata?.namespace ?? '',
          name: m.metadata?.name ?? '',
          cpuMillicores: containers.reduce((s, c) => s + c.cpuMillicores, 0),
          memoryBytes: containers.reduce((s, c) => s + c.memoryBytes, 0),
          containers,
        };
      })
      .sort((x, y) => (x.namespace === y.namespace ? (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) : x.namespace < y.namespace ? -1 : 1));
  }
}
