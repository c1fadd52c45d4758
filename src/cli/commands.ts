/**
 * Subcommand dispatch for the `kubeloom` CLI. Each subcommand lives in its own module, exports a
 * {@link Command} and is registered in ./registry.ts with one `registerCommand` line; modules load on
 * first use, so `kubeloom get` never loads the API server.
 */
import { kubeloomVersion } from '../version.ts';

/** A CLI subcommand: its one-line summary (shown by `kubeloom --help`) and its entry point. */
export interface Command {
  /** What the command does, in a few words, lower case, no final period. */
  summary: string;
  /** Runs the command with the arguments after its name; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

const commands = new Map<string, () => Promise<Command>>();

/** Registers a subcommand whose module is loaded on first use. */
export function registerCommand(name: string, load: () => Promise<Command>): void {
  commands.set(name, load);
}

/** The top-level help: every command with its summary. */
async function usage(): Promise<string> {
  const names = [...commands.keys()].sort();
  const summaries = await Promise.all(names.map(async (name) => (await commands.get(name)!()).summary));
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((name, i) => `  ${name.padEnd(width)}   ${summaries[i]}`);
  return `kubeloom ${kubeloomVersion}: Kubernetes client-go for TypeScript, and an embedded API server

usage: kubeloom <command> [flags]
       kubeloom <command> --help   flags of one command

commands:
${lines.join('\n')}

flags:
  -h, --help      print this help
  -v, --version   print the kubeloom version
`;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  await import('./registry.ts');
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${kubeloomVersion}\n`);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(await usage());
    return 0;
  }
  if (name === 'help') {
    const topic = rest[0];
    if (topic === undefined) {
      process.stdout.write(await usage());
      return 0;
    }
    const load = commands.get(topic);
    if (load !== undefined) return (await load()).run(['--help']);
    process.stderr.write(`kubeloom: unknown command "${topic}"\n${await usage()}`);
    return 2;
  }
  const load = commands.get(name);
  if (load === undefined) {
    process.stderr.write(`kubeloom: unknown ${name.startsWith('-') ? 'flag' : 'command'} "${name}"\n${await usage()}`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(rest);
  } catch (err) {
    // Every failure is one line and a non-zero exit, as a bad flag is; never a stack trace.
    process.stderr.write(`kubeloom ${name}: ${failureMessage(err)}\n`);
    return 1;
  }
}

/** One line saying what went wrong, with the fix for the failures a first run meets. */
function failureMessage(err: unknown): string {
  const e = err as { code?: unknown; address?: unknown; port?: unknown; message?: unknown } | null;
  if (e !== null && typeof e === 'object' && e.code === 'EADDRINUSE') {
    const where = typeof e.port === 'number' ? ` ${typeof e.address === 'string' ? `${e.address}:` : ''}${e.port}` : '';
    return `address${where} is already in use; pick another --port, or --port 0 for any free one`;
  }
  if (e !== null && typeof e === 'object' && e.code === 'EACCES' && typeof e.port === 'number') {
    return `no permission to listen on port ${e.port}; ports below 1024 need privileges, pick another --port`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim() || String(err);
}
