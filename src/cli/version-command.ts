/** `kubeloom version`: prints the library and Node.js versions. */
import type { Command } from './commands.ts';
import { kubeloomVersion } from '../version.ts';

/** The `version` subcommand. */
export const versionCommand: Command = {
  summary: 'print the kubeloom and Node.js versions',
  async run(): Promise<number> {
    process.stdout.write(`kubeloom ${kubeloomVersion} (node ${process.versions.node})\n`);
    return 0;
  },
};
