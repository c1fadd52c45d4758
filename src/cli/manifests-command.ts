/**
 * `kubeloom manifests [--dir DIR] [--out DIR] [--image IMG] [--check]`: writes the project's config/
 * tree (controller-gen's job, without markers) from src/setup.ts; see src/manifests and docs/ship.md.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { generateConfig } from '../manifests/config.ts';
import { loadProject } from '../manifests/project.ts';
import { writeConfig } from '../manifests/write.ts';

const usage = `usage: kubeloom manifests [--dir DIR] [--out DIR] [--image IMG]

Imports DIR/src/setup.ts (default: the current folder), runs its setup(mgr) on a manager that is
never started, and writes a kustomize tree (default DIR/config): crd/ (from the CRD declarations),
rbac/ (ServiceAccount, ClusterRole manager-role from the controllers' for/owns/watches and withRbac
rules, leader election Role), webhook/ (from the webhook builders), manager/ (Deployment),
certmanager/ (an overlay for clusters with cert-manager) and default/. Same input, same bytes.
      --dir DIR      the project folder (default: the current folder)
      --out DIR      where to write (default: DIR/config)
      --image IMG    the manager's image (default: package.json kubeloom.image, else controller:latest)
      --check        write nothing; exit 1 if config/ is not what would be written
`;

/** The `manifests` subcommand. */
export const manifestsCommand: Command = {
  summary: 'write config/ (CRDs, RBAC, webhooks, Deployment) from the project (controller-gen)',
  async run(args: string[]): Promise<number> {
    let parsed;
    try {
      parsed = parseArgs({ args, options: { dir: { type: 'string' }, out: { type: 'string' }, image: { type: 'string' }, check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    } catch (err) {
      process.stderr.write(`kubeloom manifests: ${(err as Error).message}\n${usage}`);
      return 2;
    }
    const { values } = parsed;
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    const dir = values.dir ?? '.';
    const out = values.out ?? path.join(dir, 'config');
    const input = await loadProject(dir, values.image !== undefined ? { image: values.image } : {});
    const files = generateConfig(input);
    if (values.check === true) {
      const stale: string[] = [];
      for (const [rel, text] of files) if ((await readFile(path.join(out, rel), 'utf8').catch(() => undefined)) !== text) stale.push(rel);
      if (stale.length > 0) {
        process.stderr.write(`kubeloom manifests: ${out} is out of date (${stale.join(', ')}); run kubeloom manifests\n`);
        return 1;
      }
      return 0;
    }
    const result = await writeConfig(out, files);
    process.stdout.write(`${out}: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed (${input.crds.length} CRDs, ${input.controllers.length} controllers, ${input.webhooks.length} webhook registrations)\n`);
    return 0;
  },
};
