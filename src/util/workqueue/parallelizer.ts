/**
 * ParallelizeUntil (client-go util/workqueue/parallelizer.go): runs `doWorkPiece` for pieces
 * 0 … pieces-1 on at most `workers` concurrent workers, handing out pieces in chunks, until every
 * piece ran or the signal aborted.
 */

/** Options of {@link parallelizeUntil}. */
export interface ParallelizeOptions {
  /** Stops handing out pieces once aborted; pieces already running finish. */
  signal?: AbortSignal;
  /** Pieces a worker takes at a time (WithChunkSize; values below 1 mean 1). */
  chunkSize?: number;
}

/**
 * Processes `pieces` work pieces with `workers` workers. Resolves when every worker is done: all
 * pieces ran, or the signal aborted (no piece starts after that, as upstream checks its context
 * before each piece). With `workers` ≤ 0 nothing runs. A piece that throws stops the others from
 * starting new pieces and the call rejects with that error once running pieces finished (upstream
 * crashes the process instead).
 *
 * @example
 * await parallelizeUntil(16, nodes.length, async (i) => { await check(nodes[i]!); }, { signal });
 */
export async function parallelizeUntil(workers: number, pieces: number, doWorkPiece: (piece: number) => void | Promise<void>, options: ParallelizeOptions = {}): Promise<void> {
  if (pieces <= 0) return;
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 1));
  const chunks = Math.ceil(pieces / chunkSize);
  let nextChunk = 0;
  let failure: { err: unknown } | undefined;
  const signal = options.signal;
  const worker = async (): Promise<void> => {
    while (nextChunk < chunks) {
      const chunk = nextChunk++;
      const end = Math.min(pieces, (chunk + 1) * chunkSize);
      for (let p = chunk * chunkSize; p < end; p++) {
        if (signal?.aborted === true || failure !== undefined) return;
        try {
          await doWorkPiece(p);
        } catch (err) {
          failure ??= { err };
          return;
        }
      }
    }
  };
  const n = Math.min(Math.floor(workers), chunks);
  await Promise.all(Array.from({ length: Math.max(0, n) }, worker));
  if (failure !== undefined) throw failure.err;
}
