/**
 * The perturbations a seed may choose and their default probabilities (no upstream counterpart). Each
 * probability applies at one decision point, named in its comment. Set a rate to 0 to rule a perturbation
 * out of a simulation.
 */

/** Per-decision probabilities of each perturbation. */
export interface PerturbationRates {
  /** At each step with several ready lanes: run another one than the oldest (reorders across resources and processes). Default 0.1. */
  reorder: number;
  /** At each watch event sent to an informer: hold the stream for up to `maxWatchDelayMs` (a lagging cache). Default 0.1. */
  watchDelay: number;
  /** At each watch event delivered: the watch connection drops; the informer resumes from its last resourceVersion, or relists after 410 Gone. Default 0.02. */
  watchDrop: number;
  /** At each controller write reaching the server: answer 409 Conflict without writing. Default 0.03. */
  conflict: number;
  /** At each controller write reaching the server: answer 429 TooManyRequests or 500 without writing. Default 0.03. */
  writeError: number;
  /** At each controller write the server committed: the response is lost (the caller sees 504 Timeout). Default 0.02. */
  lostResponse: number;
  /** At each response delivered to a controller process: the process crashes (cache, queue and in-flight reconciles lost) and restarts. Default 0.005. */
  crash: number;
  /** At each request: delay it or its response by up to `maxRequestDelayMs`. Default 0.05. */
  requestDelay: number;
  /**
   * At each response delivered to a REST process (`start`): the process is paused (stopped by the
   * operating system: a long GC pause, SIGSTOP) for up to `maxPauseMs`; nothing reaches it and none of
   * its timers fire until it resumes. Default 0: opt in (a pause past a Lease's duration is the classic
   * leader-election split brain). While 0 it is not drawn at all, so simulations without pauses keep
   * their schedules (and their recorded regression seeds).
   */
  pause: number;
}

/** The default rates (see each field). */
export const defaultPerturbationRates: Readonly<PerturbationRates> = Object.freeze({
  reorder: 0.1,
  watchDelay: 0.1,
  watchDrop: 0.02,
  conflict: 0.03,
  writeError: 0.03,
  lostResponse: 0.02,
  crash: 0.005,
  requestDelay: 0.05,
  pause: 0,
});

/** No perturbation at all: the FIFO schedule. */
export const noPerturbations: Readonly<PerturbationRates> = Object.freeze({
  reorder: 0,
  watchDelay: 0,
  watchDrop: 0,
  conflict: 0,
  writeError: 0,
  lostResponse: 0,
  crash: 0,
  requestDelay: 0,
  pause: 0,
});
