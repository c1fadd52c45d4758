/**
 * The `kubeloom` command line: subcommands are registered in ./commands.ts.
 */
import { runCli } from './commands.ts';

process.exitCode = await runCli(process.argv.slice(2));
