/**
 * Bearer tokens read from a file that may be rotated (transport.NewCachedFileTokenSource): the file is
 * re-read once the cached token is older than a minute; if a re-read fails, the previous token stays
 * in use so a rotation in progress does not break requests.
 */
import { readFile } from 'node:fs/promises';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { KubeloomError } from '../apimachinery/errors.ts';

// client-go's cachingTokenSource treats a file token as valid for one minute (fileTokenSource period).
const tokenFileRefreshMs = 60_000;

/** The token file could not be read (and no earlier token is available). */
export class TokenFileError extends KubeloomError {
  /** The token file. */
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super('ERR_KUBE_TOKEN_FILE', `failed to read token file "${path}": ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.path = path;
  }
}

/** A cached view of a token file. */
export class CachedTokenFile {
  /** The token file. */
  readonly path: string;
  readonly #clock: Clock;
  #token: string | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  #inflight: Promise<string> | undefined;

  constructor(path: string, clock: Clock = realClock) {
    this.path = path;
    this.#clock = clock;
  }

  /** The current token, re-reading the file when the cached one is a minute old. */
  async token(): Promise<string> {
    if (this.#token !== undefined && this.#clock.since(this.#readAt) < tokenFileRefreshMs) return this.#token;
    // Concurrent requests share one read.
    this.#inflight ??= this.#read().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Forgets the cached token so the next request re-reads the file. */
  invalidate(): void {
    this.#readAt = Number.NEGATIVE_INFINITY;
  }

  async #read(): Promise<string> {
    try {
      const text = (await readFile(this.path, 'utf8')).trim();
      if (text === '') throw new Error('the file is empty');
      this.#token = text;
      this.#readAt = this.#clock.now();
      return text;
    } catch (err) {
      if (this.#token !== undefined) return this.#token;
      throw new TokenFileError(this.path, err);
    }
  }
}
