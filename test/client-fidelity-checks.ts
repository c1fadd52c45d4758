/**
 * Client behaviours that depend on what a real API server does, written as checks that take a plain
 * RestConfig and a namespace of their own, so the same checks run against the embedded server and
 * against a real kube-apiserver (test/client-fidelity.test.ts, on both backends).
 */
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { isAlreadyExists, isConflict, isNotFound, isResourceExpired, isServiceUnavailable } from '../src/apimachinery/errors.ts';
import type { KubeList } from '../src/apimachinery/object.ts';
import type { ListOptions, RequestOptions } from '../src/apimachinery/options.ts';
import { DiscoveryClient, RestMapper } from '../src/discovery/index.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { RestClient, buildList, type RestConfig, type RestRequest, type RestResponse } from '../src/rest/index.ts';
import { ListPager } from '../src/tools/pager/index.ts';

/** What a check is given. */
export interface CheckContext {
  config: RestConfig;
  /** A namespace the check may fill; it is emptied afterwards by the runner. */
  namespace: string;
  /** Makes continue tokens and resourceVersions older than now unavailable (410). */
  expireHistory(): Promise<void>;
  /** True against a real kube-apiserver. */
  real: boolean;
}

/** Records the requests a client sends, to see what went over the wire. */
class RecordingRestClient extends RestClient {
  readonly seen: Array<{ path: string; contentType: string | undefined }> = [];
  override async do(req: RestRequest, options?: RequestOptions): Promise<RestResponse> {
    const resp = await super.do(req, options);
    const ct = resp.headers['content-type'];
    this.seen.push({ path: req.path, contentType: Array.isArray(ct) ? ct[0] : ct });
    return resp;
  }
}

async function serverMinor(rest: RestClient): Promise<number> {
  const v = await new DiscoveryClient(rest).serverVersion();
  return Number.parseInt(v.minor.replace(/\D+$/, ''), 10);
}

/**
 * Discovery asks for aggregated discovery and gets it from servers ≥ 1.30 (two requests); older
 * servers answer the same Accept header with the legacy documents, and the client falls back.
 */
export async function checkDiscoveryNegotiation(ctx: CheckContext): Promise<void> {
  const rest = new RecordingRestClient(ctx.config);
  try {
    const minor = await serverMinor(rest);
    const discovery = new DiscoveryClient(rest);
    const reader = discovery.rest as RecordingRestClient;
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.equal(error, undefined, error?.message);
    assert.equal(groups[0]!.name, '');
    assert.ok(resources.some((l) => l.groupVersion === 'apps/v1' && l.resources.some((r) => r.name === 'deployments/scale')));
    const apis = reader.seen.find((r) => r.path === '/apis')!;
    if (minor >= 30) {
      assert.match(apis.contentType ?? '', /as=APIGroupDiscoveryList/);
      assert.deepEqual(reader.seen.map((r) => r.path).sort(), ['/api', '/apis']);
    } else {
      assert.equal(apis.contentType, 'application/json');
      assert.ok(reader.seen.some((r) => r.path === '/api/v1'));
    }
    // A group version the server does not serve is a 404, not an empty list.
    const missing = await rest.json({ verb: 'GET', path: '/apis/kl-client-nope.example.com/v1', query: [], headers: { accept: 'application/json' } }).catch((e: unknown) => e);
    assert.ok(isNotFound(missing));
  } finally {
    await rest.close();
  }
}

/**
 * An APIService whose backend does not exist: the server lists its group but answers 503 for the
 * group version. Discovery reports it and keeps the healthy groups; the mapper keeps mapping.
 * Needs the apiregistration API (a real kube-apiserver); cleans up the APIService it creates.
 */
export async function checkBrokenAggregatedApi(ctx: CheckContext): Promise<void> {
  const rest = new RestClient(ctx.config);
  const group = `${ctx.namespace}.kl-client.example.com`;
  const name = `v1beta1.${group}`;
  const apiServices = new DynamicClient(rest).resource({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' });
  try {
    await apiServices.create({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name },
      spec: { group, version: 'v1beta1', groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: ctx.namespace, name: 'does-not-exist', port: 443 } },
    });
    // The aggregator picks the APIService up within moments.
    let direct: unknown;
    for (let i = 0; i < 50; i++) {
      direct = await rest.json({ verb: 'GET', path: `/apis/${group}/v1beta1`, query: [], headers: { accept: 'application/json' } }).catch((e: unknown) => e);
      if (isServiceUnavailable(direct)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(isServiceUnavailable(direct), `expected 503, got ${String(direct)}`);
    const discovery = new DiscoveryClient(rest);
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.ok(groups.some((g) => g.name === group));
    assert.ok(resources.some((l) => l.groupVersion === 'v1'));
    assert.ok(error !== undefined && isServiceUnavailable(error.groups.get(`${group}/v1beta1`)), error?.message);
    const mapper = new RestMapper(discovery);
    assert.equal((await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).resource.resource, 'deployments');
    assert.equal((await mapper.resourceFor({ resource: 'cm' })).resource.resource, 'configmaps');
  } finally {
    await apiServices.delete(name).catch(() => undefined);
    await rest.close();
  }
}

/**
 * The `timeout` query parameter in Go's duration form (`1m0s`, `1.5s`; the unit tests pin the
 * wire form) is accepted: the server parses it with time.ParseDuration and rejects what it cannot.
 */
export async function checkTimeoutParameter(ctx: CheckContext): Promise<void> {
  const rest = new RestClient({ ...ctx.config, timeoutMs: 60_000 });
  try {
    const loc = { group: '', version: 'v1', namespace: ctx.namespace, resource: 'configmaps' };
    await rest.json(buildList(loc));
    await rest.json(buildList(loc), { timeoutMs: 1500 });
  } finally {
    await rest.close();
  }
}

/** A create of an existing name is AlreadyExists, an update from a stale resourceVersion a Conflict, both with the server's Status. */
export async function checkConflicts(ctx: CheckContext): Promise<void> {
  const cs = newClientset(ctx.config);
  try {
    const cms = cs.coreV1().configMaps(ctx.namespace);
    const first = await cms.create({ metadata: { name: 'conflict' }, data: { a: '1' } });
    const again = await cms.create({ metadata: { name: 'conflict' } }).catch((e: unknown) => e);
    assert.ok(isAlreadyExists(again));
    assert.equal((again as Error).message, 'configmaps "conflict" already exists');
    await cms.update({ ...first, data: { a: '2' } });
    const stale = await cms.update({ ...first, data: { a: '3' } }).catch((e: unknown) => e);
    assert.ok(isConflict(stale) && !isAlreadyExists(stale));
    assert.equal((stale as Error).message, 'Operation cannot be fulfilled on configmaps "conflict": the object has been modified; please apply your changes to the latest version and try again');
  } finally {
    await cs.close();
  }
}

/**
 * A continue token that expired while paging: ListPager.list falls back to one full list at the
 * requested resourceVersion; eachListItem surfaces the 410.
 */
export async function checkPagerExpiredContinue(ctx: CheckContext): Promise<void> {
  const cs = newClientset(ctx.config);
  try {
    const cms = cs.coreV1().configMaps(ctx.namespace);
    const labels = { pager: 'expired' };
    for (let i = 0; i < 5; i++) await cms.create({ metadata: { name: `page-${i}`, labels } });
    const calls: ListOptions[] = [];
    let expire = true;
    const pageFn = async (o: ListOptions): Promise<KubeList<ConfigMap>> => {
      calls.push({ ...o });
      if (o.continue !== undefined && expire) {
        expire = false;
        // Move the revision on, then let it be compacted away under the token.
        await cms.create({ metadata: { name: `page-late-${calls.length}`, labels } });
        await ctx.expireHistory();
      }
      return cms.list(o);
    };
    const list = await new ListPager(pageFn, { pageSize: 2 }).list({ labelSelector: 'pager=expired' });
    assert.equal(calls.length, 3, JSON.stringify(calls));
    assert.deepEqual(calls[2], { labelSelector: 'pager=expired' });
    assert.equal(list.items.length, 6);
    assert.equal(list.paginated, true);

    expire = true;
    const seen: string[] = [];
    const err = await new ListPager(pageFn, { pageSize: 2 }).eachListItem({ labelSelector: 'pager=expired' }, (cm) => void seen.push(cm.metadata!.name!)).catch((e: unknown) => e);
    assert.ok(isResourceExpired(err), String(err));
    assert.equal(seen.length, 2);
  } finally {
    await cs.close();
  }
}

/** A watch from resourceVersion "" starts with one ADDED event per existing object, then live events. */
export async function checkWatchInitialEvents(ctx: CheckContext): Promise<void> {
  const cs = newClientset(ctx.config);
  try {
    const cms = cs.coreV1().configMaps(ctx.namespace);
    const names = ['w-b', 'w-a', 'w-c'];
    for (const n of names) await cms.create({ metadata: { name: n, labels: { watch: 'initial' } } });
    const controller = new AbortController();
    const w = await cms.watch({ labelSelector: 'watch=initial', signal: controller.signal });
    const events: string[] = [];
    try {
      for await (const e of w) {
        if (e.type === 'ERROR') throw new Error(JSON.stringify(e.object));
        events.push(`${e.type} ${e.object.metadata?.name ?? ''}`);
        if (events.length === names.length) await cms.update({ metadata: { name: 'w-a', labels: { watch: 'initial' } }, data: { x: '1' } });
        if (events.length === names.length + 1) break;
      }
    } finally {
      w.stop();
    }
    assert.deepEqual(events.slice(0, 3).sort(), ['ADDED w-a', 'ADDED w-b', 'ADDED w-c']);
    assert.equal(events[3], 'MODIFIED w-a');
  } finally {
    await cs.close();
  }
}

/** The checks in the order they run, with whether they need API aggregation (kube-apiserver only). */
export const clientFidelityChecks: Array<{ name: string; run: (ctx: CheckContext) => Promise<void>; needsAggregation?: boolean }> = [
  { name: 'discovery negotiates aggregated discovery and falls back to the legacy documents', run: checkDiscoveryNegotiation },
  { name: 'a broken aggregated API answers 503 and discovery keeps the healthy groups', run: checkBrokenAggregatedApi, needsAggregation: true },
  { name: 'the timeout query parameter is accepted in Go duration form', run: checkTimeoutParameter },
  { name: '409 shapes: AlreadyExists on create, Conflict on a stale update', run: checkConflicts },
  { name: 'an expired continue token: list falls back to a full list, eachListItem surfaces the 410', run: checkPagerExpiredContinue },
  { name: 'a watch from resourceVersion "" starts with ADDED events for what exists', run: checkWatchInitialEvents },
];
