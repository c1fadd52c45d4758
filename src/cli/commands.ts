/**
 * Subcommand dispatch for the `kubeloom` CLI. Each subcommand lives in its own module and exports
 * `run(args): Promise<number>` returning the process exit code.
 */

/** A CLI subcommand: its one-line summary and its entry point. */
export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
}

const commands: Record<string, () => Promise<Command>> = {};

/** Registers a subcommand loaded lazily on first use. */
export function registerCommand(name: string, load: () => Promise<Command>): void {
  commands[name] = load;
}

function usage(): string {
  const names = Object.keys(commands).sort();
  return `usage: kubeloom <command> [flags]\n\ncommands:\n${names.map((n) => `  ${n}`).join('\n')}\n`;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  await import('./registry.ts');
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (load === undefined) {
    process.stderr.write(`kubeloom: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  const command = await load();
  return command.run(rest);
}
