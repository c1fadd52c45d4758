/**
 * A certificate and key pair kept fresh from files (controller-runtime pkg/certwatcher/certwatcher.go).
 * Upstream reads the pair once when created, then re-reads it every 10 s and keeps the cached pair
 * when nothing changed (same certificate and key bytes) or when the new files do not parse (a rotation
 * caught half-written); on a change it calls the registered callback. Older releases also reacted to
 * fsnotify events: kubeloom does both, polling on the injected {@link Clock} and, unless turned off,
 * re-reading at once when `fs.watch` reports a change in the files' folder (Secret volumes swap a
 * `..data` symlink, which a watch of the folder sees and a watch of the files does not).
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { KubeloomError } from '../apimachinery/errors.ts';
import { defaultLogger, type Logger } from '../tools/events/logger.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

// certwatcher.go: defaultWatchInterval.
const defaultWatchIntervalMs = 10_000;

/** A serving certificate and its private key, as PEM text. */
export interface CertificatePair {
  /** The certificate chain (PEM), leaf first. */
  readonly cert: string;
  /** The private key (PEM). */
  readonly key: string;
}

/** Reading or parsing the certificate files failed. */
export class CertificateReadError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CERTIFICATE_READ', message, options);
  }
}

/** Options of {@link CertWatcher}. */
export interface CertWatcherOptions {
  /** Path of the PEM certificate (chain). */
  certPath: string;
  /** Path of the PEM private key. */
  keyPath: string;
  /** How often the files are re-read (default 10 000 ms, certwatcher's defaultWatchInterval). */
  watchIntervalMs?: number;
  /** Also re-read when `fs.watch` reports a change in the files' folders (default true). */
  watchFiles?: boolean;
  /** Time source of the polling (default the real clock). */
  clock?: Clock;
  /** Where read failures are reported (default: errors to stderr). */
  logger?: Logger;
}

/**
 * Watches a certificate and key pair: {@link CertWatcher.current} always returns the last pair that
 * parsed, and callbacks learn of each new one.
 */
export class CertWatcher {
  readonly #certPath: string;
  readonly #keyPath: string;
  readonly #intervalMs: number;
  readonly #watchFiles: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #current: CertificatePair | undefined;
  readonly #callbacks: ((pair: CertificatePair) => void)[] = [];
  // Re-reads are serialised: a watch event during a poll waits for the poll.
  #reading: Promise<void> = Promise.resolve();

  constructor(options: CertWatcherOptions) {
    this.#certPath = options.certPath;
    this.#keyPath = options.keyPath;
    this.#intervalMs = options.watchIntervalMs ?? defaultWatchIntervalMs;
    this.#watchFiles = options.watchFiles ?? true;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
  }

  /** The pair last read successfully; undefined before the first successful {@link CertWatcher.readCertificate}. */
  current(): CertificatePair | undefined {
    return this.#current;
  }

  /** Calls `callback` with every new pair, and at once with the current one when there is one. */
  registerCallback(callback: (pair: CertificatePair) => void): void {
    if (this.#current !== undefined) callback(this.#current);
    this.#callbacks.push(callback);
  }

  /**
   * Reads and parses both files; when they differ from the cached pair, caches them and calls the
   * callbacks. Throws a {@link CertificateReadError} (the cache is left as it was) when a file is
   * missing or the pair does not parse or match.
   */
  readCertificate(): Promise<void> {
    const run = this.#reading.then(() => this.#read());
    this.#reading = run.catch(() => undefined);
    return run;
  }

  async #read(): Promise<void> {
    let cert: string;
    let key: string;
    try {
      [cert, key] = await Promise.all([readFile(this.#certPath, 'utf8'), readFile(this.#keyPath, 'utf8')]);
    } catch (err) {
      throw new CertificateReadError(`open ${(err as NodeJS.ErrnoException).path ?? this.#certPath}: ${(err as Error).message}`, { cause: err });
    }
    if (this.#current !== undefined && this.#current.cert === cert && this.#current.key === key) return;
    checkPair(cert, key);
    this.#current = { cert, key };
    this.#logger.info('Updated current TLS certificate', { certPath: this.#certPath });
    for (const cb of this.#callbacks) cb(this.#current);
  }

  /**
   * Polls (and watches) the files until `signal` aborts; read failures are logged and the previous
   * pair kept. Resolves when stopped.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const reread = (): void => {
      this.readCertificate().catch((err: unknown) => this.#logger.error('failed read certificate', { error: (err as Error).message }));
    };
    const ticker = this.#clock.newTicker(this.#intervalMs, reread);
    const watchers: FSWatcher[] = [];
    if (this.#watchFiles) {
      for (const dir of new Set([path.dirname(this.#certPath), path.dirname(this.#keyPath)])) {
        try {
          const w = watch(dir, { persistent: false }, reread);
          w.on('error', () => undefined);
          watchers.push(w);
        } catch {
          // A folder that cannot be watched is still polled.
        }
      }
    }
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    ticker.stop();
    for (const w of watchers) w.close();
  }
}

// tls.X509KeyPair: the certificate must parse and its public key must match the private key.
function checkPair(cert: string, key: string): void {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new CertificateReadError('tls: failed to find any PEM data in certificate input', { cause: err });
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new CertificateReadError('tls: failed to find any PEM data in key input', { cause: err });
  }
  if (!x509.checkPrivateKey(privateKey)) throw new CertificateReadError('tls: private key does not match public key');
}
