/** Inputs and results exchanged between the runner and the scenario processes. */
import type { Span } from './measure.ts';

/** Informer variants measured. */
export const informerVariants = [
  'kubeloom',
  'kubeloom-protobuf',
  'kubeloom-strip',
  'kubeloom-metadata',
  'kubeloom-nofreeze',
  'kubeloom-nogzip',
  'kubeloom-protobuf-nogzip',
  'client-node',
] as const;
/** One informer variant. */
export type InformerVariant = (typeof informerVariants)[number];

/** Input of the informer scenario. */
export interface InformerInput {
  url: string;
  /** Kubeconfig text; against a real cluster (`real`) kubeloom takes its whole configuration from it. */
  kubeconfig: string;
  /** True against a real cluster: TLS and credentials from the kubeconfig, client-side rate limits as configured. */
  real?: boolean;
  namespace: string;
  pods: number;
  variant: InformerVariant;
  /** MODIFIED events to wait for after the sync (0: sync only). */
  watchEvents: number;
}

/** Result of the informer scenario. */
export interface InformerResult {
  variant: InformerVariant;
  pods: number;
  sync: Span;
  /** Peak RSS of the process at the end of the sync (bytes). */
  peakRss: number;
  /** Heap after GC once synced, minus the heap before the informer started (bytes). */
  heapBytes: number;
  /** Heap after GC before the informer started (bytes): the process and its modules. */
  baseHeap: number;
  watch?: Span & { events: number };
  /** performance.now() when the sync ended: where a CPU profile's watch phase starts. */
  syncedAtMs: number;
  /** CPU time of the whole process (start, module loading, sync, the GCs after it), as cgbench's is measured. */
  processCpuMs?: number;
}


/** Input of the capture scenario: a raw watch whose bytes are saved for the ceiling. */
export interface CaptureInput {
  url: string;
  namespace: string;
  resourceVersion: string;
  events: number;
  file: string;
}

/** Result of the capture scenario: the server's emission rate as a minimal reader sees it. */
export interface CaptureResult {
  events: number;
  bytes: number;
  /** From the first byte to the last event. */
  ms: number;
  cpuMs: number;
}

/** Input of the ceiling scenario. */
export interface CeilingInput {
  file: string;
  rounds: number;
}

/** Result of the ceiling scenario (best round). */
export interface CeilingResult {
  events: number;
  bytes: number;
  ms: number;
  cpuMs: number;
}

/** Input of the bare-JSON heap scenario: the same LIST the informers sync, parsed and kept. */
export interface BareJsonInput {
  url: string;
  namespace: string;
}

/** Result of the bare-JSON heap scenario. */
export interface BareJsonResult {
  pods: number;
  heapBytes: number;
  /** JSON bytes of the LIST response. */
  bytes: number;
}

/** Input of the REST scenario. */
export interface RestInput {
  url: string;
  kubeconfig: string;
  /** Name of a Pod in namespace 'bench'. */
  pod: string;
  total: number;
}

/** One REST measurement. */
export interface RestRow {
  client: string;
  concurrency: number;
  requests: number;
  ms: number;
  cpuMs: number;
  /** TCP connections the client opened (warm-up call excluded). */
  connections: number;
}

/** One WorkQueue measurement. */
export interface WorkQueueRow {
  scenario: string;
  items: number;
  ms: number;
  cpuMs: number;
}
