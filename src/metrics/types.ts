/**
 * metrics.k8s.io/v1beta1 types (k8s.io/metrics `pkg/apis/metrics/v1beta1/types.go`).
 */
import type { ObjectMeta } from '../api/meta/v1.ts';

/** Usage by resource name (`cpu`, `memory`) as Quantity strings. */
export type ResourceList = Record<string, string>;

/** The resource usage of one node (metrics.k8s.io/v1beta1 NodeMetrics). */
export interface NodeMetrics {
  /** `metrics.k8s.io/v1beta1`. */
  apiVersion?: 'metrics.k8s.io/v1beta1';
  /** `NodeMetrics`. */
  kind?: 'NodeMetrics';
  /** The node's name and the object's metadata. */
  metadata?: ObjectMeta;
  /** When the sample was taken (RFC 3339). */
  timestamp: string;
  /** Over how long the usage was measured (a Go duration, e.g. `10.0s`). */
  window: string;
  /** CPU and memory in use (quantities, e.g. `250m`, `64Mi`). */
  usage: ResourceList;
}

/** The usage of one container in a {@link PodMetrics}. */
export interface ContainerMetrics {
  /** The container's name. */
  name: string;
  /** CPU and memory in use. */
  usage: ResourceList;
}

/** The resource usage of one pod, per container (metrics.k8s.io/v1beta1 PodMetrics). */
export interface PodMetrics {
  /** `metrics.k8s.io/v1beta1`. */
  apiVersion?: 'metrics.k8s.io/v1beta1';
  /** `PodMetrics`. */
  kind?: 'PodMetrics';
  /** The pod's name and namespace, and the object's metadata. */
  metadata?: ObjectMeta;
  /** When the usage was measured (RFC 3339). */
  timestamp: string;
  /** The window the usage was averaged over (a duration, e.g. `30s`). */
  window: string;
  /** Usage per container. */
  containers: ContainerMetrics[];
}
