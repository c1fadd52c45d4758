/**
 * Named, persistent development clusters, as kind manages its clusters (sigs.k8s.io/kind
 * pkg/cluster/provider.go: Create, Delete, List; `kind get kubeconfig`): each is a `kubeloom apiserver`
 * process with its data in SQLite (`--data-dir`), TLS and an admin token, a port chosen at creation and
 * kept, and a context `kubeloom-NAME` in the user's kubeconfig. Unlike kind's node containers, which keep
 * running until deleted, a cluster here can be stopped and started again with its data intact.
 *
 * Layout, under `$XDG_DATA_HOME/kubeloom/clusters` (default `~/.local/share/kubeloom/clusters`), one
 * directory per cluster: `cluster.json` (name, port, token), `data/` (the SQLite database), `certs/` (the
 * serving certificate and client CA, made on the first start and kept, so the context stays valid),
 * `server.pid` while it runs, `server.log`, `kubeconfig` (the server's own, rewritten at each start), and
 * `snapshots/NAME.db` (copies of the database, `snapshot save`/`restore`).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { KubeloomError } from '../apimachinery/errors.ts';
import { loadKubeConfigFile } from '../clientcmd/load.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { sqliteFileName } from '../apiserver/storage/sqlite-backend.ts';
import { kubeconfigPath, mergeContext, removeContext } from './kubeconfig-context.ts';

/** A failed cluster operation (unknown cluster, name taken, server that did not come up, ...). */
export class ClusterError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CLUSTER', message);
  }
}

/** The cluster name used when none is given (kind's is `kind`). */
export const defaultClusterName = 'kubeloom';

// How long `start` waits for the server to report it listens, and `stop` for it to exit.
const startTimeoutMs = 60_000;
const stopTimeoutMs = 15_000;
const pollMs = 50;

/** What `cluster.json` records. */
export interface ClusterRecord {
  /** The cluster's name. */
  readonly name: string;
  /** The port it listens on, chosen at creation. */
  readonly port: number;
  /** The admin token (system:masters) its kubeconfig context uses. */
  readonly token: string;
}

/** A cluster and whether it runs. */
export interface ClusterStatus extends ClusterRecord {
  /** Whether its server process is alive. */
  readonly running: boolean;
  /** The server's URL. */
  readonly url: string;
  /** The context in the user's kubeconfig. */
  readonly context: string;
}

/** Options of {@link NamedClusters}. */
export interface NamedClustersOptions {
  /** Environment: XDG_DATA_HOME, HOME, KUBECONFIG (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Clock for polling the server process (default: the real clock). */
  clock?: Clock;
  /** The CLI entry run as `node ENTRY apiserver ...` (default: kubeloom's own src/cli/main.ts or dist/cli/main.js). */
  cliEntry?: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new ClusterError('could not find a free port');
  return address.port;
}

const namePattern = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The named clusters of one user (one data directory). */
export class NamedClusters {
  /** The directory holding one directory per cluster. */
  readonly root: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #clock: Clock;
  readonly #entry: string;

  constructor(options: NamedClustersOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#clock = options.clock ?? realClock;
    const data = this.#env.XDG_DATA_HOME !== undefined && this.#env.XDG_DATA_HOME !== '' ? this.#env.XDG_DATA_HOME : path.join(this.#env.HOME ?? homedir(), '.local', 'share');
    this.root = path.join(data, 'kubeloom', 'clusters');
    this.#entry = options.cliEntry ?? fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../cli/main.ts' : '../cli/main.js', import.meta.url));
  }

  /** The directory of a cluster. */
  dir(name: string): string {
    if (!namePattern.test(name)) throw new ClusterError(`invalid cluster name ${JSON.stringify(name)}: lower-case letters, digits and '-'`);
    return path.join(this.root, name);
  }

  async #record(name: string): Promise<ClusterRecord> {
    const file = path.join(this.dir(name), 'cluster.json');
    if (!existsSync(file)) throw new ClusterError(`no cluster named ${JSON.stringify(name)}`);
    return JSON.parse(await readFile(file, 'utf8')) as ClusterRecord;
  }

  #pid(name: string): number | undefined {
    const file = path.join(this.dir(name), 'server.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  }

  #status(r: ClusterRecord): ClusterStatus {
    return { ...r, running: this.#pid(r.name) !== undefined, url: `https://127.0.0.1:${r.port}`, context: `kubeloom-${r.name}` };
  }

  /** Creates a cluster (its port chosen now unless given), starts it and makes its context current. */
  async create(name = defaultClusterName, options: { port?: number } = {}): Promise<ClusterStatus> {
    const dir = this.dir(name);
    if (existsSync(path.join(dir, 'cluster.json'))) throw new ClusterError(`cluster ${JSON.stringify(name)} already exists`);
    await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
    const record: ClusterRecord = { name, port: options.port ?? (await freePort()), token: randomBytes(24).toString('hex') };
    await writeFile(path.join(dir, 'cluster.json'), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    try {
      return await this.#start(record, true);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Starts a stopped cluster (a no-op when it runs) and writes its kubeconfig context again. */
  async start(name = defaultClusterName): Promise<ClusterStatus> {
    return this.#start(await this.#record(name), false);
  }

  async #start(record: ClusterRecord, switchTo: boolean): Promise<ClusterStatus> {
    const dir = this.dir(record.name);
    if (this.#pid(record.name) === undefined) {
      const logFile = path.join(dir, 'server.log');
      const offset = existsSync(logFile) ? statSync(logFile).size : 0;
      const log = openSync(logFile, 'a');
      const args = [this.#entry, 'apiserver', '--port', String(record.port), '--token', record.token, '--data-dir', path.join(dir, 'data'), '--cert-dir', path.join(dir, 'certs'), '--write-kubeconfig', path.join(dir, 'kubeconfig')];
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log] });
      closeSync(log);
      let exited: number | null | undefined;
      child.once('exit', (code) => (exited = code));
      await writeFile(path.join(dir, 'server.pid'), `${child.pid}\n`);
      child.unref();
      for (let waited = 0; ; waited += pollMs) {
        const out = readFileSync(logFile, 'utf8').slice(offset);
        if (/listening on https?:\/\//.test(out)) break;
        if (exited !== undefined || waited >= startTimeoutMs) {
          if (exited === undefined) child.kill('SIGKILL');
          await rm(path.join(dir, 'server.pid'), { force: true });
          throw new ClusterError(`cluster ${JSON.stringify(record.name)} did not start:\n${out.trim()}`);
        }
        await this.#clock.sleep(pollMs);
      }
    }
    const own = await loadKubeConfigFile(path.join(dir, 'kubeconfig'));
    const cluster = Object.values(own.clusters)[0];
    await mergeContext(kubeconfigPath(this.#env), record.name, { server: cluster?.server ?? `https://127.0.0.1:${record.port}`, caPem: cluster?.certificateAuthorityData, token: record.token }, switchTo);
    return this.#status(record);
  }

  /** Stops a running cluster's server (SIGTERM, then SIGKILL after 15 s); false when it was not running. */
  async stop(name = defaultClusterName): Promise<boolean> {
    await this.#record(name);
    const pid = this.#pid(name);
    if (pid === undefined) return false;
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; isAlive(pid); waited += pollMs) {
      if (waited >= stopTimeoutMs) process.kill(pid, 'SIGKILL');
      await this.#clock.sleep(pollMs);
    }
    await rm(path.join(this.dir(name), 'server.pid'), { force: true });
    return true;
  }

  /** Stops a cluster, removes its data and its kubeconfig entries. */
  async delete(name = defaultClusterName): Promise<void> {
    await this.stop(name);
    await rm(this.dir(name), { recursive: true, force: true });
    await removeContext(kubeconfigPath(this.#env), name);
  }

  /** Every cluster, by name. */
  async list(): Promise<ClusterStatus[]> {
    if (!existsSync(this.root)) return [];
    const out: ClusterStatus[] = [];
    for (const entry of (await readdir(this.root)).sort()) {
      if (!existsSync(path.join(this.root, entry, 'cluster.json'))) continue;
      out.push(this.#status(await this.#record(entry)));
    }
    return out;
  }

  #snapshotFile(cluster: string, snapshot: string): string {
    if (!namePattern.test(snapshot)) throw new ClusterError(`invalid snapshot name ${JSON.stringify(snapshot)}: lower-case letters, digits and '-'`);
    return path.join(this.dir(cluster), 'snapshots', `${snapshot}.db`);
  }

  /** Saves a consistent copy of the cluster's data as `snapshot` (running or not; SQLite's VACUUM INTO). */
  async saveSnapshot(snapshot: string, cluster = defaultClusterName): Promise<string> {
    await this.#record(cluster);
    const db = path.join(this.dir(cluster), 'data', sqliteFileName);
    if (!existsSync(db)) throw new ClusterError(`cluster ${JSON.stringify(cluster)} has no data yet`);
    const file = this.#snapshotFile(cluster, snapshot);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await rm(file, { force: true });
    const conn = new DatabaseSync(db, { readOnly: true });
    try {
      conn.prepare('VACUUM INTO ?').run(file);
    } finally {
      conn.close();
    }
    return file;
  }

  /** Replaces the cluster's data with a saved snapshot, stopping and starting it again if it runs. */
  async restoreSnapshot(snapshot: string, cluster = defaultClusterName): Promise<void> {
    const record = await this.#record(cluster);
    const file = this.#snapshotFile(cluster, snapshot);
    if (!existsSync(file)) throw new ClusterError(`cluster ${JSON.stringify(cluster)} has no snapshot ${JSON.stringify(snapshot)}`);
    const running = await this.stop(cluster);
    const db = path.join(this.dir(cluster), 'data', sqliteFileName);
    for (const suffix of ['', '-wal', '-shm']) await rm(db + suffix, { force: true });
    await copyFile(file, db);
    if (running) await this.#start(record, false);
  }
}
