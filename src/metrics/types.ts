/**
 * metrics.k8s.io/v1beta1 types (k8s.io/metrics `pkg/apis/metrics/v1beta1/types.go`).
 */
import type { ObjectMeta } from '../api/meta/v1.ts';

/** Usage by resource name (`cpu`, `memory`) as Quantity strings. */
export type ResourceList = Record<string, string>;

/** The resource usage of one node (metrics.k8s.io/v1beta1 NodeMetrics). */
export interface NodeMetrics {
  apiVersion?: 'metrics.k8s.io/v1beta1';
  kind?: 'NodeMetrics';
  metadata?: ObjectMeta;
  /** When the sample was taken (RFC 3339). */
  timestamp: string;
  /** Over how long the usage was measured (a Go duration, e.g. `10.0s`). */
  window: string;
  usage: ResourceList;
}

/** The usage of one container in a {@link PodMetrics}. */
export interface ContainerMetrics {
  name: string;
  usage: ResourceList;
}

/** The resource usage of one pod, per container (metrics.k8s.io/v1beta1 PodMetrics). */
export interface PodMetrics {
  apiVersion?: 'metrics.k8s.io/v1beta1';
  kind?: 'PodMetrics';
  metadata?: ObjectMeta;
  timestamp: string;
  window: string;
  containers: ContainerMetrics[];
}
