/** `kubeloom version`: prints the library and Node.js versions (`kubeloom --version` prints the first only). */
import type { Command } from './commands.ts';
import { kubeloomVersion } from '../version.ts';

/** The `version` subcommand. */
export const versionCommand: Command = {
  summary: 'print the kubeloom and Node.js versions',
  async run(args: string[]): Promise<number> {
    if (args.length > 0) {
      const help = args[0] === '--help' || args[0] === '-h';
      (help ? process.stdout : process.stderr).write('usage: kubeloom version\n\nPrints the kubeloom and Node.js versions.\n');
      return help ? 0 : 2;
    }
    process.stdout.write(`kubeloom ${kubeloomVersion} (node ${process.versions.node})\n`);
    return 0;
  },
};
