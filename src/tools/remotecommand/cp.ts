/**
 * Copying files to and from containers as `kubectl cp` does (kubectl `pkg/cmd/cp/cp.go`): a tar
 * stream over exec. To a pod: `test -d <dest>` decides whether the source goes into or becomes the
 * destination, then the local tree is packed and fed to `tar -xmf - -C <dir>`. From a pod: `tar cf -
 * <src>` is unpacked locally below the destination, refusing entries outside it and skipping
 * symlinks. The container needs `tar` (and `test`), as with kubectl.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readlink } from 'node:fs/promises';
import { posix, resolve as resolveLocal, join as joinLocal, dirname as dirnameLocal, basename as basenameLocal, relative as relativeLocal, isAbsolute } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack as tarPack, extract as tarExtract, type Pack } from 'tar-stream';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { RestClient } from '../../rest/client.ts';
import { NonZeroExitCodeError } from './errors.ts';
import { exec } from './remotecommand.ts';

/** A copy could not be done: missing source, corrupted archive. */
export class CopyError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_COPY', message, options);
  }
}

/** Options of {@link copyToPod} and {@link copyFromPod}. */
export interface CopyOptions {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  pod: string;
  /** The container (default: the pod's only or default container). */
  container?: string;
  /** The source path (local for copyToPod, in the container for copyFromPod). */
  src: string;
  /** The destination path (in the container for copyToPod, local for copyFromPod). */
  dest: string;
  /** Receives warnings (skipped symlinks, entries outside the destination) and the command's stderr. */
  onWarning?: (message: string) => void;
  /** Aborts the copy. */
  signal?: AbortSignal;
}

/** Strips leading `../` and `./` that could escape a remote root (stripPathShortcuts upstream). */
function stripPathShortcuts(p: string): string {
  let s = posix.normalize(p);
  while (s.startsWith('../')) s = s.slice(3);
  if (s === '..' || s === '.') return '';
  return s;
}

/** Packs `src` (file, directory or symlink) into `tar` with names below `name`, as recursiveTar. */
async function addToTar(tar: Pack, src: string, name: string): Promise<void> {
  const stat = await lstat(src);
  if (stat.isDirectory()) {
    const entries = await readdir(src);
    if (entries.length === 0) {
      await new Promise<void>((resolve, reject) => tar.entry({ name, type: 'directory', mode: stat.mode & 0o7777, mtime: stat.mtime }, (err) => (err ? reject(err) : resolve())));
      return;
    }
    for (const e of entries.sort()) await addToTar(tar, joinLocal(src, e), posix.join(name, e));
    return;
  }
  if (stat.isSymbolicLink()) {
    const linkname = await readlink(src);
    await new Promise<void>((resolve, reject) => tar.entry({ name, type: 'symlink', linkname, mode: stat.mode & 0o7777, mtime: stat.mtime }, (err) => (err ? reject(err) : resolve())));
    return;
  }
  if (!stat.isFile()) return;
  const entry = tar.entry({ name, size: stat.size, mode: stat.mode & 0o7777, mtime: stat.mtime });
  await pipeline(createReadStream(src), entry);
}

function collect(sink: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _e, cb) {
      sink(chunk.toString('utf8'));
      cb();
    },
  });
}

/**
 * Copies a local file or directory into a container (`kubectl cp <local> <pod>:<dest>`). When
 * `dest` is an existing directory the source is copied into it under its own name.
 */
export async function copyToPod(client: RestClient, options: CopyOptions): Promise<void> {
  const src = resolveLocal(options.src);
  try {
    await lstat(src);
  } catch (err) {
    throw new CopyError(`${options.src} doesn't exist in local filesystem`, { cause: err });
  }
  const base = { namespace: options.namespace, pod: options.pod, ...(options.container === undefined ? {} : { container: options.container }), ...(options.signal === undefined ? {} : { signal: options.signal }) };
  let dest = options.dest;
  try {
    await exec(client, { ...base, command: ['test', '-d', dest], stdout: new PassThrough().resume(), stderr: new PassThrough().resume() });
    dest = posix.join(dest, basenameLocal(src));
  } catch (err) {
    if (!(err instanceof NonZeroExitCodeError)) throw err;
  }
  const cleanDest = posix.normalize(dest);
  const destDir = posix.dirname(cleanDest);
  const tar = tarPack();
  const packing = addToTar(tar, src, posix.basename(cleanDest)).then(
    () => tar.finalize(),
    (err: unknown) => tar.destroy(err as Error),
  );
  const command = ['tar', '-xmf', '-'];
  if (destDir !== '') command.push('-C', destDir);
  const warn = options.onWarning ?? (() => undefined);
  await Promise.all([exec(client, { ...base, command, stdin: Readable.from(tar), stdout: collect(warn), stderr: collect(warn) }), packing]);
}

/**
 * Copies a file or directory out of a container (`kubectl cp <pod>:<src> <local>`): a file becomes
 * `dest`, a directory's contents land below `dest`.
 */
export async function copyFromPod(client: RestClient, options: CopyOptions): Promise<void> {
  const dest = resolveLocal(options.dest);
  const prefix = stripPathShortcuts(options.src.replace(/^\/+/, '').replace(/\/+$/, ''));
  const warn = options.onWarning ?? (() => undefined);
  const extract = tarExtract();
  const unpacking = new Promise<void>((resolveDone, rejectDone) => {
    extract.on('entry', (header, stream, next) => {
      const fail = (err: Error): void => {
        stream.resume();
        extract.destroy(err);
      };
      if (!header.name.startsWith(prefix)) {
        fail(new CopyError('tar contents corrupted'));
        return;
      }
      const rest = header.name.slice(prefix.length);
      const target = joinLocal(dest, ...rest.split('/').filter((s) => s !== ''));
      const rel = relativeLocal(dest, target);
      if (rel.startsWith('..') || isAbsolute(rel)) {
        warn(`warning: file "${target}" is outside target destination, skipping\n`);
        stream.resume();
        next();
        return;
      }
      if (header.type === 'symlink' || header.type === 'link') {
        warn(`warning: skipping symlink: "${target}" -> "${header.linkname ?? ''}"\n`);
        stream.resume();
        next();
        return;
      }
      void (async () => {
        if (header.type === 'directory') {
          await mkdir(target, { recursive: true });
          stream.resume();
          return;
        }
        await mkdir(dirnameLocal(target), { recursive: true });
        await pipeline(stream, createWriteStream(target));
      })().then(() => next(), fail);
    });
    extract.once('finish', () => resolveDone());
    extract.once('error', rejectDone);
    extract.once('close', () => rejectDone(new CopyError('tar stream ended early')));
  });
  unpacking.catch(() => undefined);
  const base = { namespace: options.namespace, pod: options.pod, ...(options.container === undefined ? {} : { container: options.container }), ...(options.signal === undefined ? {} : { signal: options.signal }) };
  // tar-stream is built on streamx; this Node Writable feeds it with its backpressure.
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      if (extract.destroyed) {
        cb(new CopyError('tar stream could not be unpacked'));
        return;
      }
      if (extract.write(chunk)) cb();
      else extract.once('drain', () => cb());
    },
  });
  await Promise.race([exec(client, { ...base, command: ['tar', 'cf', '-', options.src], stdout: sink, stderr: collect(warn) }), unpacking]);
  (extract as unknown as { end(): void }).end();
  await unpacking;
}
