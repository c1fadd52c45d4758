/**
 * Installing CustomResourceDefinitions for a test, as envtest's InstallCRDs does
 * (sigs.k8s.io/controller-runtime/pkg/envtest/crd.go, CRDInstallOptions): read every CRD from the given
 * files and directories (YAML or JSON, several documents per file; other kinds are skipped), create them
 * — or update those that exist — and wait until each is Established and its resource appears in
 * discovery for every served version. Works against the embedded server or any cluster.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import { parseAllDocuments } from 'yaml';
import { isAlreadyExists, KubeloomError } from '../apimachinery/errors.ts';
import { parseKubeConfig } from '../clientcmd/load.ts';
import { restConfigFrom } from '../clientcmd/rest-config.ts';
import { DiscoveryClient } from '../discovery/discovery-client.ts';
import { RestClient } from '../rest/client.ts';
import type { RestConfig } from '../rest/config.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { ApiServer } from '../apiserver/server.ts';

/** Options of {@link installCrds} (envtest's CRDInstallOptions). */
export interface CrdInstallOptions {
  /** Files, or directories whose `.yaml`, `.yml` and `.json` files (not subdirectories) are read. */
  paths?: readonly string[];
  /** CRDs given directly, installed after those read from `paths`. */
  crds?: readonly CustomResourceDefinition[];
  /** Fail when a path does not exist (default false: missing paths are skipped, as envtest does). */
  errorIfPathMissing?: boolean;
  /** How long to wait for the CRDs to be established (default 10,000 ms, envtest's MaxTime). */
  maxTimeMs?: number;
  /** Pause between checks (default 100 ms, envtest's PollInterval). */
  pollIntervalMs?: number;
  /** Time source for the waiting (default: the real clock). */
  clock?: Clock;
  /** Aborts the installation and the waiting. */
  signal?: AbortSignal;
}

/** Stable codes of {@link CrdInstallError}. */
export const CrdInstallErrorCode = {
  /** A path does not exist and `errorIfPathMissing` is set. */
  PathMissing: 'ERR_CRD_PATH_MISSING',
  /** A file is not valid YAML or JSON, or one of its documents is not an object. */
  Decode: 'ERR_CRD_DECODE',
  /** A CustomResourceDefinition in another apiVersion than apiextensions.k8s.io/v1 (v1beta1 is gone since Kubernetes 1.22). */
  UnsupportedVersion: 'ERR_CRD_UNSUPPORTED_VERSION',
  /** A CRD was not Established and served in discovery within `maxTimeMs`. */
  NotEstablished: 'ERR_CRD_NOT_ESTABLISHED',
} as const;

/** Why CRDs could not be installed; API errors (an invalid CRD's 422, say) are thrown as they come. */
export class CrdInstallError extends KubeloomError {
  constructor(code: (typeof CrdInstallErrorCode)[keyof typeof CrdInstallErrorCode], message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

const extensions: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

async function filesOf(paths: readonly string[], errorIfPathMissing: boolean): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    let info;
    try {
      info = await stat(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (errorIfPathMissing) throw new CrdInstallError(CrdInstallErrorCode.PathMissing, `CRD path ${p} does not exist`, { cause: err });
      continue;
    }
    if (!info.isDirectory()) {
      files.push(p);
      continue;
    }
    const entries = await readdir(p, { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.isFile() && extensions.has(path.extname(e.name).toLowerCase())) files.push(path.join(p, e.name));
    }
  }
  return files;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The CRDs of one file, in order: documents and the items of List documents; other kinds are skipped. */
export function parseCrdDocuments(text: string, file = '<input>'): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [];
  const take = (doc: unknown, where: string): void => {
    if (doc === null || doc === undefined) return;
    if (!isObj(doc)) throw new CrdInstallError(CrdInstallErrorCode.Decode, `${where}: not an object`);
    if (typeof doc.kind === 'string' && doc.kind.endsWith('List') && Array.isArray(doc.items)) {
      doc.items.forEach((item, i) => take(item, `${where}, item ${i}`));
      return;
    }
    if (doc.kind !== 'CustomResourceDefinition') return;
    if (doc.apiVersion !== 'apiextensions.k8s.io/v1') throw new CrdInstallError(CrdInstallErrorCode.UnsupportedVersion, `${where}: CustomResourceDefinition in ${String(doc.apiVersion)} is not supported; use apiextensions.k8s.io/v1`);
    out.push(doc as unknown as CustomResourceDefinition);
  };
  const docs = parseAllDocuments(text);
  for (const [i, d] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const where = `${file}: document ${i + 1}`;
    if (d.errors.length > 0) throw new CrdInstallError(CrdInstallErrorCode.Decode, `${where}: ${d.errors[0]!.message}`, { cause: d.errors[0] });
    take(d.toJS(), where);
  }
  return out;
}

async function restClientFor(target: ApiServer | RestConfig | RestClient): Promise<{ rest: RestClient; owned: boolean }> {
  if (target instanceof RestClient) return { rest: target, owned: false };
  if ('kubeconfig' in target) return { rest: new RestClient({ ...(await restConfigFrom(parseKubeConfig(target.kubeconfig))), qps: -1 }), owned: true };
  return { rest: new RestClient(target), owned: true };
}

function established(crd: CustomResourceDefinition): boolean {
  const conditions = crd.status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * Installs the CRDs of `options.paths` and `options.crds` into the server `target` points at and waits
 * until they are served. Returns the installed CRDs as the server last answered.
 *
 * @example
 * const server = await startApiServer();
 * await installCrds(server, { paths: ['config/crd/bases'], errorIfPathMissing: true });
 */
export async function installCrds(target: ApiServer | RestConfig | RestClient, options: CrdInstallOptions = {}): Promise<CustomResourceDefinition[]> {
  const clock = options.clock ?? realClock;
  const { signal } = options;
  const wanted: CustomResourceDefinition[] = [];
  for (const file of await filesOf(options.paths ?? [], options.errorIfPathMissing ?? false)) wanted.push(...parseCrdDocuments(await readFile(file, 'utf8'), file));
  wanted.push(...(options.crds ?? []).map((c) => structuredClone(c)));
  if (wanted.length === 0) return [];
  const { rest, owned } = await restClientFor(target);
  try {
    const crds = new ResourceClient<CustomResourceDefinition>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
    for (const crd of wanted) {
      try {
        await crds.create(crd, { signal });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        const current = await crds.get(crd.metadata?.name ?? '', { signal });
        await crds.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: current.metadata?.resourceVersion } }, { signal });
      }
    }
    return await waitForCrds(rest, crds, wanted, clock, options.maxTimeMs ?? 10_000, options.pollIntervalMs ?? 100, signal);
  } finally {
    if (owned) await rest.close();
  }
}

/** WaitForCRDs: every CRD Established and each served version's resource listed in discovery. */
async function waitForCrds(
  rest: RestClient,
  crds: ResourceClient<CustomResourceDefinition>,
  wanted: readonly CustomResourceDefinition[],
  clock: Clock,
  maxTimeMs: number,
  pollIntervalMs: number,
  signal: AbortSignal | undefined,
): Promise<CustomResourceDefinition[]> {
  const deadline = clock.now() + maxTimeMs;
  const discovery = new DiscoveryClient(rest);
  let lastError: unknown;
  for (;;) {
    discovery.invalidate();
    const pending: string[] = [];
    const done: CustomResourceDefinition[] = [];
    try {
      for (const want of wanted) {
        const name = want.metadata?.name ?? '';
        const crd = await crds.get(name, { signal });
        if (!established(crd) || !(await servedInDiscovery(discovery, crd, signal))) pending.push(name);
        else done.push(crd);
      }
      if (pending.length === 0) return done;
      lastError = undefined;
    } catch (err) {
      signal?.throwIfAborted();
      lastError = err;
      pending.push(...wanted.map((w) => w.metadata?.name ?? '').filter((n) => !done.some((d) => d.metadata?.name === n)));
    }
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new CrdInstallError(CrdInstallErrorCode.NotEstablished, `CRDs not established after ${maxTimeMs} ms: ${[...new Set(pending)].join(', ')}`, lastError === undefined ? undefined : { cause: lastError });
    }
    await clock.sleep(Math.min(pollIntervalMs, left), signal);
  }
}

async function servedInDiscovery(discovery: DiscoveryClient, crd: CustomResourceDefinition, signal: AbortSignal | undefined): Promise<boolean> {
  const plural = crd.spec.names.plural;
  for (const v of crd.spec.versions) {
    if (!v.served) continue;
    const list = await discovery.serverResourcesForGroupVersion(`${crd.spec.group}/${v.name}`, { signal });
    if (!(list?.resources ?? []).some((r) => r.name === plural)) return false;
  }
  return true;
}
