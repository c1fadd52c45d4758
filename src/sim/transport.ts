/**
 * An in-process transport for kubeloom's REST client (src/rest/client.ts): an undici `Dispatcher` that
 * answers Kubernetes REST requests from the simulated cluster, each request and response, and each watch
 * event, being a step of the simulation's scheduler. With it, the real client-go stack — typed
 * clientsets, reflectors, shared informers, work queues, and kube-controller-manager's controllers
 * (src/controllers) — runs inside a simulation on the virtual clock, without sockets.
 *
 * Served: GET (object, list with labelSelector, watch), POST, PUT (object and status), PATCH (JSON merge
 * patch; a strategic merge patch is applied as a merge patch, which is exact for maps but replaces
 * lists), DELETE. Watches start from the requested resourceVersion (the current state as ADDED events for
 * "" or "0", followed by the initial-events-end bookmark when `sendInitialEvents=true`: a watch list), answer a compacted one with an ERROR event (410 Expired), and end when a `watchDrop`
 * perturbation closes them, as a server closing the connection would. Writes see the same perturbations as
 * {@link apiCall} (conflicts, 429/500, lost responses, delays). Not served: server-side apply, JSON patch,
 * other subresources, field selectors, pagination (lists are whole).
 */
import { Buffer } from 'node:buffer';
import { Dispatcher } from 'undici';
import { StatusError, newStatus, type Status } from '../apimachinery/errors.ts';
import { parseSelector } from '../apimachinery/labels.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { splitApiPath } from '../apiserver/handlers/request-info.ts';
import { RevisionCompactedError, type Change } from '../apiserver/storage.ts';
import { kinds } from '../client/kinds.ts';
import { apiCall, type Caller } from './api.ts';
import { keyOf, storeOf, type SimKind } from './cluster.ts';
import type { SimEnv } from './env.ts';

/** A parsed resource path. */
interface Target {
  kind: SimKind;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

let builtins: Map<string, SimKind> | undefined;

function builtinKinds(): Map<string, SimKind> {
  if (builtins !== undefined) return builtins;
  builtins = new Map();
  for (const group of Object.values(kinds) as Record<string, SimKind>[]) {
    for (const k of Object.values(group)) builtins.set(`${k.group}/${k.version}/${k.resource}`, k);
  }
  return builtins;
}

function parsePath(env: SimEnv, pathname: string): Target | undefined {
  const parts = pathname.split('/').filter((p) => p !== '');
  const groupVersion = splitApiPath(parts);
  if (groupVersion === undefined) return undefined;
  const { group, version } = groupVersion;
  let rest = groupVersion.rest;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const resource = rest[0];
  if (resource === undefined) return undefined;
  const kind = builtinKinds().get(`${group}/${version}/${resource}`) ?? env.cluster.kinds().find((k) => k.group === group && k.version === version && k.resource === resource);
  if (kind === undefined) return undefined;
  return { kind, namespace, name: rest[1], subresource: rest[2] };
}

function bodyText(body: Dispatcher.DispatchOptions['body']): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new StatusError(newStatus(400, 'BadRequest', 'the simulated transport takes string or buffer bodies only'));
}

/**
 * The response controller undici's handlers are given. An abort before the response started is reported
 * to the handler as an error (what undici's own client does when it tears the request down), so the
 * caller's promise settles: a reflector that aborts a watch whose request was still on its way (a relist
 * requested meanwhile) would otherwise wait for it forever.
 */
class Control implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** Set once the handler was given the response's start. */
  started = false;
  onAbort: (() => void) | undefined;
  readonly #handler: Dispatcher.DispatchHandler;
  constructor(handler: Dispatcher.DispatchHandler) {
    this.#handler = handler;
  }
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.onAbort?.();
    if (!this.started) this.#handler.onResponseError?.(this, reason);
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

const jsonHeaders = { 'content-type': 'application/json' };

/**
 * The dispatcher: pass it as `RestClientOptions.dispatcher` of a RestClient (or `newClientset`), created
 * by {@link SimHarness.restClientOptions} inside a running simulation.
 */
export class SimDispatcher extends Dispatcher {
  readonly #env: SimEnv;
  readonly #caller: Caller;
  #watches = 0;
  // Ends every open watch stream; emptied by kill().
  readonly #open = new Set<() => void>();

  /**
   * Created by the simulation run ({@link SimHarness.restClientOptions}).
   * @param caller who sends the requests (names them in the trace; decides whether writes are perturbed).
   * @internal
   */
  constructor(env: SimEnv, caller: Caller) {
    super();
    this.#env = env;
    this.#caller = caller;
  }

  /** Ends every open watch without telling its reader, as a process that died stops hearing anything. */
  kill(): void {
    for (const end of [...this.#open]) end();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const control = new Control(handler);
    handler.onRequestStart?.(control, {});
    if (control.aborted) return true;
    const url = new URL(opts.path, 'http://sim.invalid');
    const method = String(opts.method).toUpperCase();
    const target = parsePath(this.#env, url.pathname);
    const fail = (status: Status): void => {
      control.started = true;
      handler.onResponseStart?.(control, status.code ?? 500, jsonHeaders, status.reason ?? '');
      handler.onResponseData?.(control, Buffer.from(JSON.stringify(status)));
      handler.onResponseEnd?.(control, {});
    };
    if (target === undefined) {
      fail(newStatus(404, 'NotFound', `the simulated cluster does not serve ${url.pathname}`));
      return true;
    }
    const watch = method === 'GET' && (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1');
    if (watch) {
      this.#watch(target, url, control, handler);
      return true;
    }
    let text: string;
    try {
      text = bodyText(opts.body);
    } catch (err) {
      fail((err as StatusError).status);
      return true;
    }
    const { kind, namespace, name, subresource } = target;
    const cluster = this.#env.cluster;
    const key = name === undefined ? undefined : keyOf(kind, namespace, name);
    const label = `${method} ${kind.resource}${key === undefined ? (namespace === undefined ? '' : ` -n ${namespace}`) : ` ${key}`}${subresource === undefined ? '' : `/${subresource}`}`;
    const status = subresource === 'status' ? 'status' : undefined;
    let op: (() => { value: unknown; note: string }) | undefined;
    let code = 200;
    if (subresource !== undefined && subresource !== 'status') op = undefined;
    else if (method === 'GET' && key !== undefined) op = () => ({ value: cluster.get(kind, key), note: '200' });
    else if (method === 'GET') {
      const sel = url.searchParams.get('labelSelector');
      const selector = sel === null || sel === '' ? undefined : parseSelector(sel);
      op = () => {
        const { items, rv } = cluster.list(kind, namespace);
        const kept = selector === undefined ? items : items.filter((o) => selector.matches(o.metadata?.labels));
        return { value: { kind: `${kind.kind}List`, apiVersion: kind.group === '' ? kind.version : `${kind.group}/${kind.version}`, metadata: { resourceVersion: String(rv) }, items: kept }, note: `200 (${kept.length} items, rv=${rv})` };
      };
    } else if (method === 'POST' && key === undefined) {
      code = 201;
      op = () => {
        const obj = JSON.parse(text) as KubeObject;
        if (namespace !== undefined) obj.metadata = { ...obj.metadata, namespace };
        const created = cluster.create(kind, obj);
        return { value: created, note: `201 ${created.metadata?.name} rv=${created.metadata?.resourceVersion}` };
      };
    } else if (method === 'PUT' && key !== undefined) {
      op = () => {
        const updated = cluster.update(kind, JSON.parse(text) as KubeObject, status);
        return { value: updated, note: `200 rv=${updated.metadata?.resourceVersion}` };
      };
    } else if (method === 'PATCH' && key !== undefined) {
      const type = String((opts.headers as Record<string, string> | undefined)?.['content-type'] ?? '');
      if (type.includes('merge-patch') || type.includes('strategic-merge-patch')) {
        op = () => {
          const updated = cluster.patch(kind, key, JSON.parse(text), status);
          return { value: updated, note: `200 rv=${updated.metadata?.resourceVersion}` };
        };
      }
    } else if (method === 'DELETE' && key !== undefined) {
      op = () => {
        cluster.delete(kind, key);
        return { value: { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 }, note: '200' };
      };
    }
    if (op === undefined) {
      fail(newStatus(405, 'MethodNotAllowed', `the simulated cluster does not serve ${method} ${url.pathname}`));
      return true;
    }
    // Events are never perturbed: the event recorder drops a failed event by design (and logs it), so
    // failing them would test nothing and bury the trace.
    const write = method !== 'GET' && kind.resource !== 'events';
    apiCall(this.#env, this.#caller, label, write, op).then(
      (value) => {
        if (control.aborted) return;
        control.started = true;
        handler.onResponseStart?.(control, code, jsonHeaders, 'OK');
        handler.onResponseData?.(control, Buffer.from(JSON.stringify(value)));
        handler.onResponseEnd?.(control, {});
      },
      (err: unknown) => {
        if (control.aborted) return;
        fail(err instanceof StatusError ? err.status : newStatus(500, 'InternalError', String(err)));
      },
    );
    return true;
  }

  #watch(target: Target, url: URL, control: Control, handler: Dispatcher.DispatchHandler): void {
    const { sched, rates, limits, cluster } = this.#env;
    const { kind, namespace } = target;
    const store = storeOf(kind);
    const lane = `${this.#caller.name}/watch/${store}/${this.#watches++}`;
    const rvText = url.searchParams.get('resourceVersion') ?? '';
    const sel = url.searchParams.get('labelSelector');
    const selector = sel === null || sel === '' ? undefined : parseSelector(sel);
    const wanted = (o: KubeObject | undefined): boolean => o !== undefined && (namespace === undefined || o.metadata?.namespace === namespace) && (selector === undefined || selector.matches(o.metadata?.labels));
    let unsubscribe: (() => void) | undefined;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.#open.delete(end);
      unsubscribe?.();
      sched.dropLanes(lane);
    };
    this.#open.add(end);
    control.onAbort = end;
    const line = (type: string, obj: unknown): Buffer => Buffer.from(`${JSON.stringify({ type, object: obj })}\n`);
    const send = (change: Change): void => {
      const obj = change.object.obj as KubeObject;
      const prev = change.prev?.obj as KubeObject | undefined;
      if (!wanted(obj) && !wanted(prev)) return;
      const u = sched.decide('watchDelay', rates.watchDelay, (x) => `hold ${lane} for ${Math.round(x * limits.maxWatchDelayMs)}ms`);
      sched.post(
        lane,
        `watch ${lane} ${change.type} ${change.key} rv=${change.rv}`,
        () => {
          if (ended || control.aborted) return;
          if (sched.decide('watchDrop', rates.watchDrop, () => `close ${lane} before rv=${change.rv}`) !== undefined) {
            end();
            handler.onResponseEnd?.(control, {});
            return;
          }
          sched.log(`WATCH ${this.#caller.name} ${kind.resource} ${change.type} ${change.key} rv=${change.rv}`);
          if (kind.resource !== 'leases') this.#env.activity();
          handler.onResponseData?.(control, line(change.type, change.object.obj));
        },
        u === undefined ? 0 : Math.round(u * limits.maxWatchDelayMs),
      );
    };
    if (this.#caller.epoch() < 0) return;
    sched.post(lane, `watch request ${lane} rv=${rvText}`, () => {
      if (control.aborted || ended) return;
      this.#env.apiOps++;
      control.started = true;
      handler.onResponseStart?.(control, 200, jsonHeaders, 'OK');
      const initialEvents = url.searchParams.get('sendInitialEvents') === 'true';
      if (initialEvents || rvText === '' || rvText === '0') {
        for (const o of cluster.peekAll(kind, namespace)) if (wanted(o)) handler.onResponseData?.(control, line('ADDED', o));
        // A watch list (KEP-3157) ends its initial events with a bookmark carrying the list's revision.
        if (initialEvents) {
          const apiVersion = kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
          const metadata = { resourceVersion: String(cluster.storage.revision), annotations: { 'k8s.io/initial-events-end': 'true' } };
          handler.onResponseData?.(control, line('BOOKMARK', { kind: kind.kind, apiVersion, metadata }));
        }
      } else {
        let backlog: Change[];
        try {
          backlog = cluster.storage.changesSince(store, Number(rvText));
        } catch (err) {
          if (!(err instanceof RevisionCompactedError)) throw err;
          sched.log(`API ${this.#caller.name} WATCH ${kind.resource} rv=${rvText} -> 410 Expired`);
          handler.onResponseData?.(control, line('ERROR', newStatus(410, 'Expired', `too old resource version: ${rvText} (${cluster.storage.compactedRevision})`)));
          end();
          handler.onResponseEnd?.(control, {});
          return;
        }
        for (const c of backlog) send(c);
      }
      sched.log(`API ${this.#caller.name} WATCH ${kind.resource}${namespace === undefined ? '' : ` -n ${namespace}`} rv=${rvText || '""'}`);
      unsubscribe = cluster.storage.subscribe(store, send);
    });
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}
