/**
 * One scenario, one process. The runner starts `node --expose-gc bench/scenarios/<name>.ts` with an
 * IPC channel, sends its input, may exchange control messages (e.g. "synced" → the runner writes
 * the watch events), and receives one result. Console output of the child goes to stderr so it never
 * mixes with results.
 *
 * Scenarios run as JavaScript compiled by {@link compileScenarios}, as the package ships: Node's
 * type stripping alone adds 30–50 MB to a process's RSS (its WebAssembly transformer, growing with
 * the sources it strips), which no user of the built package pays.
 */
import { spawnSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let compiledRoot: string | undefined;

/**
 * Compiles src/ and bench/ (bench/tsconfig.json) into a temporary directory whose node_modules and
 * package.json link to the repository's; later {@link runScenario} calls run the compiled
 * scenarios. Returns a function removing the directory.
 */
export function compileScenarios(): () => void {
  const out = mkdtempSync(path.join(os.tmpdir(), 'kubeloom-bench-'));
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(repoRoot, 'bench', 'tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`compiling the scenarios failed (${r.status ?? r.signal})`);
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(out, 'node_modules'), 'dir');
  symlinkSync(path.join(repoRoot, 'package.json'), path.join(out, 'package.json'), 'file');
  compiledRoot = out;
  return () => {
    compiledRoot = undefined;
    rmSync(out, { recursive: true, force: true });
  };
}

/** A message between runner and scenario. */
export interface Message {
  type: string;
  [k: string]: unknown;
}

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** Extra node flags, e.g. ['--cpu-prof']. */
  execArgv?: string[];
  /** Called for every message but the result; may answer through `send`. */
  onMessage?: (m: Message, send: (m: Message) => void) => void | Promise<void>;
  /** Kills the child after this long (default 10 minutes). */
  timeoutMs?: number;
}

/** Runs a scenario file (relative to bench/scenarios) in a child process; resolves with its result. */
export async function runScenario<R>(name: string, input: unknown, options: RunScenarioOptions = {}): Promise<R> {
  const file = compiledRoot === undefined ? fileURLToPath(new URL(`../scenarios/${name}.ts`, import.meta.url)) : path.join(compiledRoot, 'bench', 'scenarios', `${name}.js`);
  const child = fork(file, [], {
    execPath: process.execPath,
    execArgv: ['--expose-gc', '--max-old-space-size=8192', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const send = (m: Message): void => {
    if (child.connected) child.send(m);
  };
  return await new Promise<R>((resolve, reject) => {
    let result: R | undefined;
    let settled = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`scenario ${name} timed out`));
    }, options.timeoutMs ?? 600_000);
    child.on('message', (raw) => {
      const m = raw as Message;
      if (m.type === 'result') {
        result = m.result as R;
        return;
      }
      if (m.type === 'error') {
        settled = true;
        clearTimeout(timer);
        reject(new Error(`scenario ${name} failed: ${String(m.message)}`));
        child.kill('SIGKILL');
        return;
      }
      Promise.resolve(options.onMessage?.(m, send)).catch((err: unknown) => {
        child.kill('SIGKILL');
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (settled) return;
      if (result !== undefined) resolve(result);
      else reject(new Error(`scenario ${name} exited (${code ?? signal}) without a result`));
    });
    send({ type: 'input', input });
  });
}

// ---- scenario side ----------------------------------------------------------------------------

const inbox: Message[] = [];
const waiters: Array<(m: Message) => void> = [];
if (process.send !== undefined) {
  process.on('message', (raw) => {
    const m = raw as Message;
    const w = waiters.shift();
    if (w !== undefined) w(m);
    else inbox.push(m);
  });
}

/** The next message from the runner. */
export function nextMessage(): Promise<Message> {
  const m = inbox.shift();
  if (m !== undefined) return Promise.resolve(m);
  return new Promise((r) => waiters.push(r));
}

/** Sends a message to the runner; resolves once it is handed to the channel. */
export function sendMessage(m: Message): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(m, undefined, {}, () => resolve());
  });
}

/**
 * The body of a scenario: reads the input, runs `fn`, sends its result and exits (open sockets and
 * informers are not worth an orderly shutdown in a process that is about to end).
 */
export function scenario<I, R>(fn: (input: I) => Promise<R>): void {
  void (async () => {
    try {
      const m = await nextMessage();
      const result = await fn(m.input as I);
      await sendMessage({ type: 'result', result });
      process.exit(0);
    } catch (err) {
      await sendMessage({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exit(1);
    }
  })();
}
