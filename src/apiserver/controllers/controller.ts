/**
 * What every background loop running inside the server offers the controller manager: start, stop and
 * whether it has work ready right now.
 */

/** A background loop of the server. */
export interface ServerController {
  /** Starts watching and working; called once. */
  start(): void;
  /** Stops; resolves once the item in hand is done. The loop is not started again (a new one is made). */
  stop(): Promise<void>;
  /** True when no work is ready and none is in progress (work waiting for a delay does not count). */
  idle(): boolean;
}

/** Counts of what the stand-ins did. */
export interface ControllerStats {
  /** Pods the scheduler stand-in bound to a node. */
  podsBound: number;
  /** Pods the kubelet stand-in marked Running. */
  podsStarted: number;
  /** Pods the kubelet stand-in marked Succeeded or Failed. */
  podsFinished: number;
}
