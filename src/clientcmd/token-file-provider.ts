/**
 * A bearer token read from a file and re-read periodically (client-go's transport cachingTokenSource
 * over a file token source), for callers that want a {@link CredentialProvider} rather than
 * `RestConfig.bearerTokenFile`.
 */
import { readFile } from 'node:fs/promises';
import type { Credentials, CredentialProvider } from '../rest/config.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { KubeConfigReadError } from './errors.ts';
import { protectSecrets, REDACTED } from './redact.ts';

/**
 * How long a token read from a file is used before the file is read again: client-go's file token
 * source gives a token one minute and its caching source refreshes it 10 s early.
 */
export const DefaultTokenFileRefreshMs = 50_000;

/** Options for {@link TokenFileCredentialProvider}. */
export interface TokenFileCredentialProviderOptions {
  /** The token file (e.g. a projected service-account token). */
  path: string;
  /** Default: the real clock. */
  clock?: Clock;
  /** Re-read period in ms. Default {@link DefaultTokenFileRefreshMs}. */
  refreshMs?: number;
}

/**
 * Serves the token in a file, re-reading it every `refreshMs` or after {@link invalidate}.
 * When a re-read fails the previous token keeps being served (the file may be mid-rotation);
 * the first read's failure is an error.
 */
export class TokenFileCredentialProvider implements CredentialProvider {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #refreshMs: number;
  #token: string | undefined;
  #readAt = 0;
  #reading: Promise<string> | undefined;

  constructor(options: TokenFileCredentialProviderOptions) {
    this.#path = options.path;
    this.#clock = options.clock ?? realClock;
    this.#refreshMs = options.refreshMs ?? DefaultTokenFileRefreshMs;
  }

  /** The current token, read from the file when the cached one is older than the refresh period. */
  async getCredentials(signal?: AbortSignal): Promise<Credentials> {
    signal?.throwIfAborted();
    if (this.#token === undefined || this.#clock.since(this.#readAt) >= this.#refreshMs) {
      this.#reading ??= this.#read().finally(() => {
        this.#reading = undefined;
      });
      await this.#reading;
    }
    const credentials: Credentials = { token: this.#token! };
    return protectSecrets(credentials, () => ({ token: REDACTED }), 'Credentials');
  }

  /** Forces a re-read on the next call. */
  invalidate(): void {
    this.#readAt = -Infinity;
  }

  async #read(): Promise<string> {
    try {
      const token = (await readFile(this.#path, 'utf8')).trim();
      if (token === '') throw Object.assign(new Error('empty token file'), { code: 'EMPTY' });
      this.#token = token;
    } catch (err) {
      if (this.#token === undefined) throw new KubeConfigReadError(this.#path, 'tokenFile', err);
      // Keep serving the previous token, as upstream does.
    }
    this.#readAt = this.#clock.now();
    return this.#token;
  }
}
