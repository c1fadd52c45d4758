/**
 * Terminal resizing for TTY sessions (client-go `tools/remotecommand/resize.go`): a queue the session
 * reads sizes from and sends each on the resize channel.
 */

/** A terminal size in character cells (remotecommand.TerminalSize). */
export interface TerminalSize {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
}

/** A source of terminal sizes (remotecommand.TerminalSizeQueue). `next` resolves `undefined` when there are no more. */
export interface TerminalSizeQueue {
  /** The next size to send; undefined when there will be no more. */
  next(): Promise<TerminalSize | undefined>;
}

/**
 * A {@link TerminalSizeQueue} fed by the caller, e.g. from `process.stdout.on('resize')`. Sizes pushed
 * faster than they are sent collapse into the latest one, since only the final size matters.
 *
 * @example
 * const queue = new ResizeQueue();
 * process.stdout.on('resize', () => queue.resize({ width: process.stdout.columns, height: process.stdout.rows }));
 */
export class ResizeQueue implements TerminalSizeQueue {
  #pending: TerminalSize | undefined;
  #waiter: ((size: TerminalSize | undefined) => void) | undefined;
  #closed = false;

  /** Queues a new size, replacing one not yet taken. Ignored after close. */
  resize(size: TerminalSize): void {
    if (this.#closed) return;
    const s = { width: size.width, height: size.height };
    if (this.#waiter !== undefined) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w(s);
      return;
    }
    this.#pending = s;
  }

  /** Ends the queue: a waiting and every later `next()` resolves undefined. */
  close(): void {
    this.#closed = true;
    this.#pending = undefined;
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.(undefined);
  }

  /** The latest size not yet taken (waits for one); undefined once closed. */
  next(): Promise<TerminalSize | undefined> {
    if (this.#pending !== undefined) {
      const s = this.#pending;
      this.#pending = undefined;
      return Promise.resolve(s);
    }
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }
}

/** The resize channel's encoding of a size: Go field names, no JSON tags upstream. */
export function encodeTerminalSize(size: TerminalSize): string {
  return JSON.stringify({ Width: size.width, Height: size.height });
}

/** Parses one resize message; undefined when it is not a valid size. */
export function decodeTerminalSize(data: string): TerminalSize | undefined {
  try {
    const v = JSON.parse(data) as { Width?: unknown; Height?: unknown };
    if (typeof v.Width !== 'number' || typeof v.Height !== 'number') return undefined;
    if (!Number.isInteger(v.Width) || !Number.isInteger(v.Height) || v.Width < 0 || v.Height < 0 || v.Width > 65535 || v.Height > 65535) return undefined;
    return { width: v.Width, height: v.Height };
  } catch {
    return undefined;
  }
}
