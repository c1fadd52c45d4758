/**
 * `kubeloom init DIR [--domain D] [--kubeloom SPEC] [--name N]`: scaffolds an operator project
 * (kubebuilder's `init`); see src/scaffold and docs/ship.md.
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { initProject, type InitOptions } from '../scaffold/init.ts';

const usage = `usage: kubeloom init DIR [--domain example.com] [--kubeloom SPEC] [--name NAME]

Writes a runnable operator project into DIR (created if absent; must be empty): package.json,
tsconfig.json, src/main.ts (the manager), src/setup.ts (the wiring), test/env.ts (the embedded API
server), Dockerfile, README.md. Then: cd DIR && npm install && npx kubeloom create api ...
      --domain D        domain of the project's API groups (default example.com)
      --kubeloom SPEC   the kubeloom dependency: a version range or file:…tgz (default ^<this version>)
      --name NAME       project name (default: DIR's base name; a DNS label)
`;

/** The `init` subcommand. */
export const initCommand: Command = {
  summary: 'scaffold an operator project (kubebuilder init)',
  async run(args: string[]): Promise<number> {
    let parsed;
    try {
      parsed = parseArgs({ args, allowPositionals: true, options: { domain: { type: 'string' }, kubeloom: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    } catch (err) {
      process.stderr.write(`kubeloom init: ${(err as Error).message}\n${usage}`);
      return 2;
    }
    const { values, positionals } = parsed;
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    if (positionals.length !== 1) {
      process.stderr.write(`kubeloom init: name one folder\n${usage}`);
      return 2;
    }
    const dir = positionals[0]!;
    const options: InitOptions = {};
    if (values.domain !== undefined) options.domain = values.domain;
    if (values.kubeloom !== undefined) options.kubeloomSpec = values.kubeloom;
    if (values.name !== undefined) options.name = values.name;
    const files = await initProject(dir, options);
    process.stdout.write(`wrote ${files.length} files to ${dir}; next: cd ${dir} && npm install && npx kubeloom create api --group G --version v1 --kind K\n`);
    return 0;
  },
};
