/**
 * One scenario, one process. The runner starts `node --expose-gc bench/scenarios/<name>.ts` with an
 * IPC channel, sends its input, may exchange control messages (e.g. "synced" → the runner writes
 * the watch events), and receives one result. Console output of the child goes to stderr so it never
 * mixes with results.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  const file = fileURLToPath(new URL(`../scenarios/${name}.ts`, import.meta.url));
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
