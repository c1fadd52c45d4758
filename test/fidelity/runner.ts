/**
 * Runs scenarios against a {@link Backend} and collects what the server answered, raw: status codes,
 * headers and body bytes of requests, events of watches, exit codes and output of kubectl. The
 * normaliser (normalise.ts) turns a run into its comparable form.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { Backend } from './backend.ts';
import { contentTypes, isEvents, isHttp, isKubectl, isSleep, isWatch, splitArgs, type HttpStep, type Scenario, type Step } from './scenario.ts';

/** The working directory of kubectl: files that commands such as `create secret tls` read. */
export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** What one step produced. */
export type Observation =
  | { kind: 'http'; step: HttpStep; label: string; status: number; contentType: string; warnings: string[]; body: Buffer; timedOut: boolean }
  | { kind: 'kubectl'; label: string; exit: number; stdout: string; stderr: string; step: Step }
  | { kind: 'watch'; label: string; status: number; contentType: string; body: Buffer }
  | { kind: 'events'; label: string; events: unknown[]; ended: boolean; unordered: boolean; ignoreBookmarks: boolean }
  | { kind: 'skipped'; label: string; why: string };

/** A finished scenario run. */
export interface Run {
  scenario: Scenario;
  namespace: string;
  /** The scenario's token (`{{r}}`): 5 random lowercase characters, unique per scenario run. */
  token: string;
  observations: Observation[];
  /** Set when the run itself failed (a timeout, a step that could not be sent). */
  error?: string;
}

/** Options of {@link runScenario}. */
export interface RunOptions {
  backend: Backend;
  /** The kubectl binary; undefined: kubectl steps are skipped. */
  kubectl: string | undefined;
  /** Longest wait for watch events (ms). */
  eventTimeoutMs: number;
  /** User-Agent of raw requests (it names the field manager). */
  userAgent: string;
}

/** A random run token: 5 characters from the apiserver's name-generator alphabet (no vowels). */
export function newToken(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

/** The namespace of a scenario in a run: `fid-<slug>-<token>`, at most 63 characters. */
export function namespaceOf(s: Scenario, token: string): string {
  const slug = s.id.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/, '');
  return `fid-${slug}-${token}`;
}

class Vars {
  readonly #values = new Map<string, string>();
  constructor(ns: string, token: string) {
    this.#values.set('ns', ns);
    this.#values.set('r', token);
  }

  set(name: string, value: string): void {
    this.#values.set(name, value);
  }

  fill(text: string): string {
    return text.replace(/\{\{([a-zA-Z0-9_]+)\}\}/g, (all, name: string) => {
      const v = this.#values.get(name);
      if (v === undefined) throw new Error(`placeholder ${all} has no value`);
      return v;
    });
  }

  fillDeep(v: unknown): unknown {
    if (typeof v === 'string') return this.fill(v);
    if (Array.isArray(v)) return v.map((x) => this.fillDeep(x));
    if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.fill(k), this.fillDeep(x)]));
    return v;
  }
}

/** Reads a dotted path (`items.0.metadata.name`) out of a JSON value. */
export function pathGet(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function encodeBody(step: HttpStep, vars: Vars): { bytes: Buffer | undefined; contentType: string | undefined } {
  const type = step.type === undefined ? undefined : ((contentTypes as Record<string, string>)[step.type] ?? step.type);
  if (step.body === undefined) return { bytes: undefined, contentType: type };
  if (step.body instanceof Uint8Array) return { bytes: Buffer.from(step.body), contentType: type };
  if (typeof step.body === 'string') return { bytes: Buffer.from(vars.fill(step.body)), contentType: type ?? contentTypes.json };
  const filled = vars.fillDeep(step.body);
  const ct = type ?? contentTypes.json;
  const text = ct === contentTypes.apply || ct === contentTypes.yaml ? toYaml(filled) : JSON.stringify(filled);
  return { bytes: Buffer.from(text), contentType: ct };
}

interface OpenWatch {
  events: unknown[];
  read: number;
  ended: boolean;
  changed: () => void;
  waiters: Array<() => void>;
  abort: AbortController;
}

function splitRequestLine(line: string): { method: string; path: string } {
  const sp = line.indexOf(' ');
  if (sp < 0) throw new Error(`a request line is "METHOD /path": ${line}`);
  return { method: line.slice(0, sp), path: line.slice(sp + 1) };
}

async function send(o: RunOptions, method: string, path: string, headers: Record<string, string>, body: Buffer | undefined, signal?: AbortSignal): Promise<Awaited<ReturnType<typeof request>>> {
  const h: Record<string, string> = { 'user-agent': o.userAgent, ...headers };
  if (o.backend.token !== undefined) h.authorization = `Bearer ${o.backend.token}`;
  return request(o.backend.url + path, {
    method: method as 'GET',
    headers: h,
    ...(body === undefined ? {} : { body }),
    dispatcher: o.backend.dispatcher,
    ...(signal === undefined ? {} : { signal }),
  });
}

// A request step whose answer has not ended after this long (a watch started by mistake) is cut off.
const requestTimeoutMs = 10_000;

/** Sends a request and reads the whole answer; an answer still streaming after requestTimeoutMs is cut off. */
async function exchange(o: RunOptions, method: string, path: string, headers: Record<string, string>, body: Buffer | undefined): Promise<{ res: Awaited<ReturnType<typeof request>>; body: Buffer; timedOut: boolean }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), requestTimeoutMs);
  try {
    const res = await send(o, method, path, headers, body, abort.signal);
    const chunks: Buffer[] = [];
    let timedOut = false;
    try {
      for await (const c of res.body) chunks.push(c as Buffer);
    } catch (err) {
      if (!abort.signal.aborted) throw err;
      timedOut = true;
    }
    return { res, body: Buffer.concat(chunks), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

function warningsOf(headers: Record<string, string | string[] | undefined>): string[] {
  const w = headers.warning;
  if (w === undefined) return [];
  return (Array.isArray(w) ? w : [w]).map((x) => x.replace(/^\d{3} \S+ "(.*)"$/, '$1'));
}

async function runKubectl(kubectl: string, args: string[], env: NodeJS.ProcessEnv, stdin: string | undefined): Promise<{ exit: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl, args, { env, cwd: fixturesDir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exit: code ?? -1, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

/** Runs one scenario in a namespace of its own; never throws (failures are recorded in `error`). */
export async function runScenario(s: Scenario, o: RunOptions): Promise<Run> {
  const token = newToken();
  const ns = namespaceOf(s, token);
  const vars = new Vars(ns, token);
  const observations: Observation[] = [];
  const watches = new Map<string, OpenWatch>();
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-fidelity-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
  const result: Run = { scenario: s, namespace: ns, token, observations };
  const useNamespace = s.namespace !== false;
  try {
    await o.backend.writeKubeconfig(kubeconfig, useNamespace ? ns : 'default');
    if (useNamespace) {
      const r = await send(o, 'POST', '/api/v1/namespaces', { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })));
      const text = await r.body.text();
      if (r.statusCode !== 201) throw new Error(`creating namespace ${ns}: ${r.statusCode} ${text}`);
    }
    for (const step of s.steps) await runStep(step, false);
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  for (const w of watches.values()) w.abort.abort();
  try {
    for (const step of s.cleanup ?? []) await runStep(step, true).catch(() => {});
    if (useNamespace) await deleteNamespace(o, ns);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return result;

  async function runStep(step: Step, quiet: boolean): Promise<void> {
    const record = (ob: Observation): void => {
      if (!quiet) observations.push(ob);
    };
    if (isSleep(step)) {
      await new Promise((r) => setTimeout(r, step.sleepMs));
      return;
    }
    if (isWatch(step)) {
      const { method, path } = splitRequestLine(vars.fill(step.req));
      const headers: Record<string, string> = { ...(vars.fillDeep(step.headers ?? {}) as Record<string, string>) };
      if (step.accept !== undefined) headers.accept = step.accept;
      const abort = new AbortController();
      const res = await send(o, method, path, headers, undefined, abort.signal);
      const contentType = String(res.headers['content-type'] ?? '');
      if (res.statusCode !== 200) {
        record({ kind: 'watch', label: step.req, status: res.statusCode, contentType, body: Buffer.from(await res.body.arrayBuffer()) });
        return;
      }
      record({ kind: 'watch', label: step.req, status: res.statusCode, contentType, body: Buffer.alloc(0) });
      const w: OpenWatch = { events: [], read: 0, ended: false, changed: () => {}, waiters: [], abort };
      w.changed = () => {
        for (const f of w.waiters.splice(0)) f();
      };
      watches.set(step.watch, w);
      void (async () => {
        let buffer = '';
        try {
          for await (const chunk of res.body) {
            buffer += (chunk as Buffer).toString('utf8');
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl).trim();
              buffer = buffer.slice(nl + 1);
              if (line === '') continue;
              try {
                w.events.push(JSON.parse(line));
              } catch {
                w.events.push({ unparsable: line });
              }
              w.changed();
            }
          }
        } catch {
          // aborted at the end of the scenario
        }
        w.ended = true;
        w.changed();
      })();
      return;
    }
    if (isEvents(step)) {
      const w = watches.get(step.events);
      if (w === undefined) throw new Error(`no watch named ${step.events}`);
      const deadline = Date.now() + (step.untilEnd === true ? o.eventTimeoutMs * 3 : o.eventTimeoutMs);
      const done = (): boolean => w.ended || (step.untilEnd !== true && w.events.length - w.read >= (step.count ?? 1));
      while (!done() && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
          w.waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      const events = step.untilEnd === true ? w.events.slice(w.read) : w.events.slice(w.read, w.read + (step.count ?? 1));
      w.read += events.length;
      record({ kind: 'events', label: `events ${step.events}`, events, ended: step.untilEnd === true ? w.ended : false, unordered: step.unordered === true, ignoreBookmarks: step.ignoreBookmarks === true });
      return;
    }
    if (isKubectl(step)) {
      if (o.kubectl === undefined) {
        record({ kind: 'skipped', label: `kubectl ${step.kubectl}`, why: 'no kubectl binary' });
        return;
      }
      const args = splitArgs(vars.fill(step.kubectl));
      const out = await runKubectl(o.kubectl, args, env, step.stdin === undefined ? undefined : vars.fill(step.stdin));
      record({ kind: 'kubectl', label: `kubectl ${step.kubectl}`, step, ...out });
      return;
    }
    if (isHttp(step)) {
      const { method, path } = splitRequestLine(vars.fill(step.req));
      const { bytes, contentType } = encodeBody(step, vars);
      const headers: Record<string, string> = { ...(vars.fillDeep(step.headers ?? {}) as Record<string, string>) };
      if (contentType !== undefined) headers['content-type'] = contentType;
      if (step.accept !== undefined) headers.accept = step.accept;
      let { res, body, timedOut } = await exchange(o, method, path, headers, bytes);
      for (const deadline = Date.now() + 30_000; step.until !== undefined && res.statusCode !== step.until && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 100));
        ({ res, body, timedOut } = await exchange(o, method, path, headers, bytes));
      }
      const ct = String(res.headers['content-type'] ?? '');
      record({ kind: 'http', step, label: step.req, status: res.statusCode, contentType: ct, warnings: warningsOf(res.headers), body, timedOut });
      if (step.save !== undefined) {
        let parsed: unknown;
        try {
          parsed = ct.includes('yaml') ? parseYaml(body.toString('utf8')) : JSON.parse(body.toString('utf8'));
        } catch {
          parsed = undefined;
        }
        for (const [name, path] of Object.entries(step.save)) {
          const v = pathGet(parsed, path);
          if (v === undefined) throw new Error(`step ${step.req}: nothing at ${path} to save as ${name} (status ${res.statusCode})`);
          vars.set(name, typeof v === 'string' ? v : JSON.stringify(v));
        }
      }
      return;
    }
    throw new Error(`unknown step ${JSON.stringify(step)}`);
  }
}

// Namespaced resources that can be listed and deleted, found once per backend.
const cleanupResources = new WeakMap<Backend, Promise<string[]>>();

async function namespacedCollections(o: RunOptions): Promise<string[]> {
  const get = async (path: string): Promise<Record<string, unknown> | undefined> => {
    const r = await send(o, 'GET', path, { accept: 'application/json' }, undefined);
    const text = await r.body.text();
    return r.statusCode === 200 ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  };
  const prefixes = ['/api/v1'];
  const groups = (await get('/apis'))?.groups;
  for (const g of Array.isArray(groups) ? (groups as Array<{ preferredVersion?: { groupVersion?: string } }>) : []) {
    if (g.preferredVersion?.groupVersion !== undefined) prefixes.push(`/apis/${g.preferredVersion.groupVersion}`);
  }
  const out: string[] = [];
  for (const p of prefixes) {
    const list = await get(p);
    for (const r of Array.isArray(list?.resources) ? (list.resources as Array<{ name: string; namespaced: boolean; verbs: string[] }>) : []) {
      if (r.namespaced && !r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('deletecollection')) out.push(`${p}/namespaces/{ns}/${r.name}`);
    }
  }
  return out;
}

/**
 * Deletes a scenario's namespace. A cluster without a controller-manager leaves it Terminating with
 * its contents: then the contents are deleted here (finalizers removed first) and the namespace is
 * finalized, so nothing is left behind.
 */
export async function deleteNamespace(o: RunOptions, ns: string): Promise<void> {
  const drain = async (r: Awaited<ReturnType<typeof send>>): Promise<number> => {
    await r.body.text();
    return r.statusCode;
  };
  await drain(await send(o, 'DELETE', `/api/v1/namespaces/${ns}`, {}, undefined));
  if ((await drain(await send(o, 'GET', `/api/v1/namespaces/${ns}`, {}, undefined))) === 404) return;
  let collections = cleanupResources.get(o.backend);
  if (collections === undefined) {
    collections = namespacedCollections(o);
    cleanupResources.set(o.backend, collections);
  }
  for (const template of await collections) {
    const path = template.replace('{ns}', ns);
    const r = await send(o, 'GET', path, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' }, undefined);
    const text = await r.body.text();
    if (r.statusCode !== 200) continue;
    const items = (JSON.parse(text) as { items?: Array<{ metadata: { name: string; finalizers?: string[] } }> }).items ?? [];
    if (items.length === 0) continue;
    for (const it of items) {
      if ((it.metadata.finalizers ?? []).length === 0) continue;
      await drain(await send(o, 'PATCH', `${path}/${it.metadata.name}`, { 'content-type': contentTypes.merge }, Buffer.from('{"metadata":{"finalizers":null}}')));
    }
    await drain(await send(o, 'DELETE', path, {}, undefined));
  }
  const finalize = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, spec: { finalizers: [] } };
  await drain(await send(o, 'PUT', `/api/v1/namespaces/${ns}/finalize`, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(finalize))));
}

/** Runs scenarios with at most `concurrency` at a time; results in the scenarios' order. */
export async function runAll(scenarios: readonly Scenario[], o: RunOptions, concurrency: number, onDone?: (r: Run) => void): Promise<Run[]> {
  const results: Run[] = new Array<Run>(scenarios.length);
  const shared = scenarios.flatMap((s, i) => (s.alone === true ? [] : [i]));
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = shared[next++];
      if (i === undefined) return;
      const r = await runScenario(scenarios[i]!, o);
      results[i] = r;
      onDone?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  // Then, one at a time, the scenarios that must not overlap with others.
  for (const [i, s] of scenarios.entries()) {
    if (s.alone !== true) continue;
    const r = await runScenario(s, o);
    results[i] = r;
    onDone?.(r);
  }
  return results;
}
