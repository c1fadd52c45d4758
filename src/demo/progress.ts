/**
 * What the demo shows while it runs: on a terminal one status line rewritten in place (cache sizes,
 * queue depth, reconciles per second, convergence); elsewhere plain progress lines, one per step
 * and one every few seconds, so logs stay readable.
 */
import type { Clock, Ticker } from '../util/clock/clock.ts';
import type { ConvergenceResult } from './convergence.ts';
import type { DemoRuntime } from './runtime.ts';

/** Where progress goes. */
export interface ProgressOutput {
  write(text: string): unknown;
  /** True on a terminal: the status line is redrawn in place. */
  isTTY?: boolean;
}

/** Options of {@link Progress}. */
export interface ProgressOptions {
  out: ProgressOutput;
  runtime: DemoRuntime;
  clock: Clock;
  /** Total PodSets expected now, for "converged x/y". */
  expectedPodSets?: () => number;
  /** Redraw period on a TTY (default 200 ms). */
  ttyPeriodMs?: number;
  /** Line period elsewhere (default 5,000 ms). */
  linePeriodMs?: number;
}

function totalReconciles(runtime: DemoRuntime): number {
  const s = runtime.podSetController.controller.stats();
  return s.success + s.requeueAfter + s.error;
}

/** The live status line / progress logger. */
export class Progress {
  readonly #out: ProgressOutput;
  readonly #runtime: DemoRuntime;
  readonly #clock: Clock;
  readonly #tty: boolean;
  readonly #expected: () => number;
  #ticker: Ticker | undefined;
  #step = '';
  #convergence: ConvergenceResult | undefined;
  #lastCount = 0;
  #lastAt: number;
  #rate = 0;
  #lineShown = false;
  readonly #ttyPeriodMs: number;
  readonly #linePeriodMs: number;

  constructor(options: ProgressOptions) {
    this.#out = options.out;
    this.#runtime = options.runtime;
    this.#clock = options.clock;
    this.#tty = options.out.isTTY === true;
    this.#expected = options.expectedPodSets ?? (() => this.#runtime.podSetInformer.getIndexer().listKeys().length);
    this.#ttyPeriodMs = options.ttyPeriodMs ?? 200;
    this.#linePeriodMs = options.linePeriodMs ?? 5_000;
    this.#lastAt = this.#clock.now();
  }

  /** Starts the periodic redraw / progress lines. */
  start(): void {
    this.#ticker = this.#clock.newTicker(this.#tty ? this.#ttyPeriodMs : this.#linePeriodMs, () => this.#tick());
  }

  /** Stops redrawing and clears the status line. */
  stop(): void {
    this.#ticker?.stop();
    this.#ticker = undefined;
    this.#clearLine();
  }

  /** Sets the step shown in the status line. */
  setStep(step: string): void {
    this.#step = step;
  }

  /** Records the latest convergence check (undefined: none running, hide it). */
  setConvergence(c: ConvergenceResult | undefined): void {
    this.#convergence = c;
  }

  /** Prints a line above the status line. */
  log(line: string): void {
    this.#clearLine();
    this.#out.write(`${line}\n`);
    if (this.#tty) this.#draw();
  }

  /** The status text: caches, queue, reconciles/s, convergence. */
  statusText(): string {
    const r = this.#runtime;
    const stats = r.podSetController.controller.stats();
    const podSets = r.podSetInformer.getIndexer().listKeys().length;
    const pods = r.podInformer.getIndexer().listKeys().length;
    const conv = this.#convergence;
    const convText = conv === undefined ? '' : conv.converged ? ' | converged' : ` | converged ${conv.convergedPodSets}/${this.#expected()}`;
    const leader = r.isLeader() ? 'leader' : 'standby';
    return `${this.#step === '' ? '' : `[${this.#step}] `}podsets ${podSets} pods ${pods} | queue ${stats.queueDepth} in-flight ${stats.active} | reconciles ${totalReconciles(r)} (${this.#rate.toFixed(1)}/s) | ${leader}${convText}`;
  }

  #tick(): void {
    const now = this.#clock.now();
    const count = totalReconciles(this.#runtime);
    const elapsed = (now - this.#lastAt) / 1000;
    if (elapsed > 0) this.#rate = (count - this.#lastCount) / elapsed;
    this.#lastCount = count;
    this.#lastAt = now;
    if (this.#tty) this.#draw();
    else this.#out.write(`progress: ${this.statusText()}\n`);
  }

  #draw(): void {
    this.#out.write(`\r\x1b[2K${this.statusText()}`);
    this.#lineShown = true;
  }

  #clearLine(): void {
    if (this.#tty && this.#lineShown) {
      this.#out.write('\r\x1b[2K');
      this.#lineShown = false;
    }
  }
}
