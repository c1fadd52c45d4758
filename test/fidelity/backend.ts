/**
 * The server a corpus run talks to: a real cluster named by a kubeconfig (recording) or the embedded
 * API server (replay). Either way it is reached over HTTP(S) with the kubeconfig's CA and token, and
 * kubectl gets a copy of the kubeconfig whose context namespace is the scenario's.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { Agent, type Dispatcher } from 'undici';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

/** A server under test. */
export interface Backend {
  /** 'real' when recording from a cluster, 'embedded' when replaying. */
  readonly name: 'real' | 'embedded';
  /** Base URL of the API server. */
  readonly url: string;
  /** Dispatcher carrying the cluster's CA. */
  readonly dispatcher: Dispatcher;
  /** Bearer token of the kubeconfig's user, if any. */
  readonly token: string | undefined;
  /** Writes a kubeconfig for kubectl whose current context uses `namespace`. */
  writeKubeconfig(path: string, namespace: string): Promise<void>;
  /** Releases the dispatcher. */
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Thrown for a kubeconfig this harness cannot use. */
export class KubeconfigError extends Error {
  readonly code = 'ERR_FIDELITY_KUBECONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

function named(list: unknown, name: unknown, what: string): Obj {
  const entry = Array.isArray(list) ? list.filter(isObj).find((e) => e.name === name) : undefined;
  const inner = entry === undefined ? undefined : entry[what];
  if (!isObj(inner)) throw new KubeconfigError(`kubeconfig: no ${what} named ${String(name)}`);
  return inner;
}

/**
 * A backend from kubeconfig text: the current context's server, CA (inline or file) and token. Client
 * certificates are supported too; exec plugins are not (the corpus needs a static credential).
 */
export async function backendFromKubeconfig(name: Backend['name'], text: string): Promise<Backend> {
  const config = parseYaml(text) as unknown;
  if (!isObj(config)) throw new KubeconfigError('kubeconfig: not a YAML object');
  const context = named(config.contexts, config['current-context'], 'context');
  const cluster = named(config.clusters, context.cluster, 'cluster');
  const user = named(config.users, context.user, 'user');
  const url = (typeof cluster.server === 'string' ? cluster.server : '').replace(/\/+$/, '');
  if (url === '') throw new KubeconfigError('kubeconfig: the cluster has no server');
  const pem = async (inline: unknown, file: unknown): Promise<string | undefined> => {
    if (typeof inline === 'string') return Buffer.from(inline, 'base64').toString('utf8');
    if (typeof file === 'string') return readFile(file, 'utf8');
    return undefined;
  };
  const ca = await pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = await pem(user['client-certificate-data'], user['client-certificate']);
  const key = await pem(user['client-key-data'], user['client-key']);
  let token = typeof user.token === 'string' ? user.token : undefined;
  if (token === undefined && typeof user.tokenFile === 'string') token = (await readFile(user.tokenFile, 'utf8')).trim();
  const dispatcher = new Agent({
    connect: { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }), ...(cluster['insecure-skip-tls-verify'] === true ? { rejectUnauthorized: false } : {}) },
    // Watches stay open for their timeoutSeconds; kubectl-like long requests are fine.
    bodyTimeout: 0,
    headersTimeout: 60_000,
  });
  return {
    name,
    url,
    dispatcher,
    token,
    async writeKubeconfig(path, namespace) {
      const copy = structuredClone(config);
      for (const c of Array.isArray(copy.contexts) ? copy.contexts.filter(isObj) : []) {
        if (c.name === config['current-context'] && isObj(c.context)) c.context.namespace = namespace;
      }
      await writeFile(path, toYaml(copy), { mode: 0o600 });
    },
    async close() {
      await dispatcher.close();
    },
  };
}

/** The kubectl binary to use (test/support/kubectl.ts). */
export { findKubectl } from '../support/kubectl.ts';
