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
  return command.run(rest);
}
