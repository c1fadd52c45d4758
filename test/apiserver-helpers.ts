/**
 * Small HTTP helpers for the embedded API server's tests: JSON requests and a line reader for watches.
 */
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/testing/index.ts';

/** Decoded JSON as tests read it: any shape, checked by assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  raw?: string | Buffer;
}

/**
 * Runs `fn` against a fresh server started with `options`, then stops it; the server's controllers must not
 * have reported a single error meanwhile.
 */
export async function withControllers(options: ApiServerOptions, fn: (s: ApiServer) => Promise<void>): Promise<void> {
  const errors: unknown[] = [];
  const s = await startApiServer({ ...options, controllers: { onError: (_name, err) => errors.push(err), ...options.controllers } });
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
  assert.deepEqual(errors, [], 'no controller reported an error');
}

/** Sends a request and parses a JSON answer (body is undefined when the answer is not JSON). */
export async function call(server: ApiServer, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const res = await fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** Creates an object and asserts success, returning the stored object. */
export async function create(server: ApiServer, path: string, obj: unknown): Promise<Json> {
  const r = await call(server, 'POST', path, { body: obj });
  if (r.status !== 201) throw new Error(`create ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

export function pod(name: string, extra: { labels?: Record<string, string>; namespace?: string; spec?: unknown; status?: unknown; finalizers?: string[] } = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.namespace ? { namespace: extra.namespace } : {}), ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
    spec: extra.spec ?? { containers: [{ name: 'c', image: 'busybox' }] },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/** An open watch: read events one by one; `end()` resolves when the server ends the stream. */
export interface WatchReader {
  status: number;
  /** The next event (parsed), or undefined when the stream ended. */
  next(): Promise<Json>;
  /** The next raw line, or undefined at the end of the stream. */
  nextLine(): Promise<string | undefined>;
  /** Reads lines until the stream ends (or fails); returns them and how it ended. */
  rest(): Promise<{ lines: string[]; error: unknown }>;
  close(): Promise<void>;
}

export async function watch(server: ApiServer, path: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  const controller = new AbortController();
  const res = await fetch(server.url + path, { headers, signal: controller.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  const nextLine = async (): Promise<string | undefined> => {
    for (;;) {
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return line;
      }
      if (done) return undefined;
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        continue;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: res.status,
    nextLine,
    async next() {
      const line = await nextLine();
      return line === undefined ? undefined : JSON.parse(line);
    },
    async rest() {
      const lines: string[] = [];
      try {
        for (;;) {
          const l = await nextLine();
          if (l === undefined) return { lines, error: undefined };
          lines.push(l);
        }
      } catch (error) {
        if (buffer !== '') lines.push(buffer);
        return { lines, error };
      }
    },
    async close() {
      controller.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

/** A compact view of watch events: "TYPE name rv". */
export function brief(e: Json): string {
  return `${e.type} ${e.object?.metadata?.name ?? ''} ${e.object?.metadata?.resourceVersion ?? ''}`.trim();
}
