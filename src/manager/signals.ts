/**
 * Shutdown on signals (controller-runtime pkg/manager/signals/signal.go): the first SIGTERM or SIGINT
 * aborts the returned signal (the manager then stops gracefully), a second one exits at once with
 * code 1. {@link exitCodeFor} maps how `start` ended to an exit code a Deployment's restart policy
 * understands: 0 after a clean stop, 1 after an error (a lost lease included, so the pod restarts and
 * competes again).
 */

/** Options of {@link setupSignalHandler}. */
export interface SignalHandlerOptions {
  /** The signals to handle. Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** Called on the second signal instead of `process.exit(1)` (for tests). */
  onSecondSignal?: () => void;
}

/**
 * An AbortSignal that aborts on the first SIGTERM/SIGINT; the second one exits the process with code 1
 * (signals.SetupSignalHandler). Call it once per process.
 *
 * @example
 * const signal = setupSignalHandler();
 * process.exitCode = exitCodeFor(await mgr.start(signal).then(() => undefined, (err: unknown) => err));
 */
export function setupSignalHandler(options: SignalHandlerOptions = {}): AbortSignal {
  const controller = new AbortController();
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const handler = (sig: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      controller.abort(new Error(`received ${sig}`));
      return;
    }
    if (options.onSecondSignal !== undefined) options.onSecondSignal();
    else process.exit(1);
  };
  for (const s of signals) process.on(s, handler);
  return controller.signal;
}

/** 0 when the manager stopped cleanly (`error` undefined), 1 otherwise. */
export function exitCodeFor(error: unknown): number {
  return error === undefined ? 0 : 1;
}
