/**
 * A durable {@link StorageBackend} on SQLite (Node's built-in `node:sqlite`, no dependency), after kine's
 * log-structured SQL backend (k3s-io/kine pkg/logstructured/sqllog and pkg/drivers/generic): one row per
 * revision — the object's key, whether the row created or deleted it, and its value — so the table is
 * etcd's MVCC log; the latest row of a key is its current state; a compaction removes the rows no read at
 * or after the compacted revision can reach (superseded states and deletions), keeping every key's latest.
 *
 * What differs from kine: there is no poll loop and no second writer — one server owns the directory
 * (a lock file with its pid), keeps the current state in memory as its read model, and writes each change
 * here before applying it; values are the stored JSON (kine stores the apiserver's encoded bytes).
 *
 * Durability: the database runs in WAL mode; each change is its own transaction, committed with
 * `synchronous=FULL` (the WAL is fsynced on every commit) before the write is acknowledged, so an
 * acknowledged write survives the process being killed and the machine losing power.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { Change, ChangeType, StoredObject } from '../storage.ts';
import { StorageKind, type StorageBackend, type StorageSnapshot } from './interface.ts';

/** The database file inside a data directory. */
export const sqliteFileName = 'kubeloom.db';
const lockFileName = 'kubeloom.lock';

// The on-disk format; a database of another format is refused rather than misread.
const schemaVersion = 1;
// How many appends between two compactions of the log to what the in-memory history has dropped.
const compactEveryAppends = 1000;

/** Thrown when a data directory is in use by another running server, or holds an unknown format. */
export class DataDirectoryError extends KubeloomError {
  constructor(message: string) {
    super('ERR_DATA_DIRECTORY', message);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// The lock files this process holds (a second server of the same process on a directory is refused too).
const held = new Set<string>();

// Takes the directory's lock for this process; a lock left by a process that is gone is taken over.
function lock(dir: string): string {
  const file = path.resolve(dir, lockFileName);
  if (held.has(file)) throw new DataDirectoryError(`data directory ${dir} is in use by another server of this process`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(file);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw new DataDirectoryError(`data directory ${dir} is in use by process ${pid}`);
      rmSync(file, { force: true });
    }
  }
  throw new DataDirectoryError(`could not lock data directory ${dir}`);
}

function unlock(file: string): void {
  held.delete(file);
  rmSync(file, { force: true });
}

/** Options of {@link SqliteBackend.open}. */
export interface SqliteBackendOptions {
  /**
   * SQLite's `synchronous` setting (default 'full': every commit is fsynced, so an acknowledged write
   * survives a power loss; 'normal' survives a killed process only, and is several times faster).
   */
  synchronous?: 'full' | 'normal';
}

/** A revision log in a SQLite database under a data directory. */
export class SqliteBackend implements StorageBackend {
  readonly kind = StorageKind.Sqlite;
  /** The database file. */
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #lockFile: string;
  readonly #synchronous: 'full' | 'normal';
  readonly #insert: StatementSync;
  readonly #compact: StatementSync;
  readonly #setMeta: StatementSync;
  #compacted = 0;
  #appendsSinceCompaction = 0;
  #closed = false;

  private constructor(dir: string, options: SqliteBackendOptions) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#lockFile = lock(dir);
    this.file = path.join(dir, sqliteFileName);
    this.#synchronous = options.synchronous ?? 'full';
    try {
      this.#db = new DatabaseSync(this.file);
      this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=${this.#synchronous.toUpperCase()};`);
      this.#db.exec(`
        CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS log (
          revision INTEGER PRIMARY KEY,
          store TEXT NOT NULL,
          key TEXT NOT NULL,
          created INTEGER NOT NULL,
          deleted INTEGER NOT NULL,
          value TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS log_store_key ON log (store, key, revision);`);
      const version = this.#meta('schema');
      if (version === undefined) this.#db.prepare('INSERT INTO meta (name, value) VALUES (?, ?)').run('schema', schemaVersion);
      else if (version !== schemaVersion) throw new DataDirectoryError(`${this.file} has storage format ${version}, this kubeloom reads format ${schemaVersion}`);
      this.#compacted = this.#meta('compacted') ?? 0;
      this.#insert = this.#db.prepare('INSERT INTO log (revision, store, key, created, deleted, value) VALUES (?, ?, ?, ?, ?, ?)');
      // kine's compact: at or below the target, drop deletions and every state a later one (also at or
      // below the target) supersedes; each key keeps its latest state.
      this.#compact = this.#db.prepare(`
        DELETE FROM log WHERE revision <= :rv AND (deleted = 1 OR revision < (
          SELECT MAX(l.revision) FROM log AS l WHERE l.store = log.store AND l.key = log.key AND l.revision <= :rv))`);
      this.#setMeta = this.#db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value');
    } catch (err) {
      unlock(this.#lockFile);
      throw err;
    }
  }

  /** Opens (creating when needed) the database of a data directory, taking its lock. */
  static open(dir: string, options: SqliteBackendOptions = {}): SqliteBackend {
    return new SqliteBackend(dir, options);
  }

  #meta(name: string): number | undefined {
    const row = this.#db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: number } | undefined;
    return row?.value;
  }

  describe(): string {
    return `sqlite ${this.file} (WAL, synchronous=${this.#synchronous}: every acknowledged write is on disk${this.#synchronous === 'full' ? ', fsynced' : ''})`;
  }

  load(): StorageSnapshot {
    const objects = new Map<string, Map<string, StoredObject>>();
    const history: Change[] = [];
    let revision = this.#compacted;
    const rows = this.#db.prepare('SELECT revision, store, key, created, deleted, value FROM log ORDER BY revision').iterate() as Iterable<{ revision: number; store: string; key: string; created: number; deleted: number; value: string }>;
    for (const row of rows) {
      let items = objects.get(row.store);
      if (items === undefined) {
        items = new Map();
        objects.set(row.store, items);
      }
      const object: StoredObject = { obj: JSON.parse(row.value) as Record<string, unknown>, json: row.value, rv: row.revision, key: row.key };
      const prev = items.get(row.key);
      const type: ChangeType = row.deleted === 1 ? 'DELETED' : row.created === 1 ? 'ADDED' : 'MODIFIED';
      if (type === 'DELETED') items.delete(row.key);
      else items.set(row.key, object);
      if (row.revision > this.#compacted) history.push({ rv: row.revision, store: row.store, type, key: row.key, object, prev });
      revision = row.revision;
    }
    for (const [name, items] of objects) if (items.size === 0) objects.delete(name);
    return { revision: Math.max(revision, this.#compacted), compactedRevision: this.#compacted, objects, history };
  }

  append(change: Change, compacted: number): void {
    this.#insert.run(change.rv, change.store, change.key, change.type === 'ADDED' ? 1 : 0, change.type === 'DELETED' ? 1 : 0, change.object.json);
    // Keep the log about as long as the in-memory history: compact now and then to what it dropped.
    if (++this.#appendsSinceCompaction >= compactEveryAppends && compacted > this.#compacted) this.compact(compacted);
  }

  compact(revision: number): void {
    if (revision <= this.#compacted) return;
    this.#db.exec('BEGIN');
    try {
      this.#compact.run({ rv: revision });
      this.#setMeta.run('compacted', revision);
      this.#db.exec('COMMIT');
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
    this.#compacted = revision;
    this.#appendsSinceCompaction = 0;
  }

  /** Copies the database, consistent as of now, to `file` (VACUUM INTO); works while the server writes. */
  backupTo(file: string): void {
    this.#db.prepare('VACUUM INTO ?').run(file);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
    unlock(this.#lockFile);
  }
}
