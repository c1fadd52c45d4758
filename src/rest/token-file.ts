/**
 * Bearer tokens read from a file that may be rotated (transport.NewCachedFileTokenSource): a token
 * read from the file is valid for a minute and refreshed 10 s before that, so the file is re-read
 * once the cached token is 50 s old; if a re-read fails, the previous token stays in use so a
 * rotation in progress does not break requests. A 401 does not force a re-read (upstream's bearer
 * round tripper does not reset its file token source).
 */
import { readFile } from 'node:fs/promises';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { KubeloomError } from '../apimachinery/errors.ts';

// client-go's fileTokenSource gives a token one minute (period) and cachingTokenSource refreshes it
// 10 s early (leeway).
const tokenFilePeriodMs = 60_000;
const tokenFileLeewayMs = 10_000;

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

  /** The current token, re-reading the file when the cached one is 50 s old. */
  async token(): Promise<string> {
    if (this.#token !== undefined && this.#clock.since(this.#readAt) < tokenFilePeriodMs - tokenFileLeewayMs) return this.#token;
    // Concurrent requests share one read.
    this.#inflight ??= this.#read().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Forgets the cached token so the next call re-reads the file (the REST client never calls it). */
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
