/**
 * `kubeloom create api --group G --version V --kind K [--namespaced|--cluster] [--webhook]
 * [--conversion]`: adds a kind, or a version of one, to the project in the current folder
 * (kubebuilder's `create api` and `create webhook`); see src/scaffold and docs/ship.md.
 */
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { createApi } from '../scaffold/create-api.ts';

const usage = `usage: kubeloom create api --group G --version V --kind K [flags]

Adds a kind to the project in the current folder: src/api/<kind>/ (its declaration: schema, type and
CRD), src/controller/<kind>-controller.ts with its test, and with --webhook a defaulter and a
validator with their tests; each wired into src/setup.ts. For a kind that exists, adds version V
(starting with the stored version's fields) and, with --conversion, its conversions and the
conversion webhook.
      --group G        API group, without the project's domain (empty: the domain itself)
      --version V      version, e.g. v1, v1alpha1
      --kind K         kind, UpperCamelCase
      --namespaced     objects live in namespaces (default)
      --cluster        objects are cluster-scoped
      --webhook        also write the defaulting and validating webhooks (a new kind, or its
                       first version later, as kubebuilder create webhook)
      --conversion     a new version of an existing kind: write its conversion webhook
      --dir DIR        the project folder (default: the current folder)
`;

/** The `create` subcommand (`create api`). */
export const createCommand: Command = {
  summary: 'add a kind (or a version) with its controller and webhooks (kubebuilder create api)',
  async run(args: string[]): Promise<number> {
    const [what, ...rest] = args;
    if (what === '--help' || what === '-h' || what === 'help') {
      process.stdout.write(usage);
      return 0;
    }
    if (what !== 'api') {
      process.stderr.write(`kubeloom create: ${what === undefined ? 'what to create is missing' : `unknown "${what}"`}; only "api" exists\n${usage}`);
      return 2;
    }
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        options: {
          group: { type: 'string' },
          version: { type: 'string' },
          kind: { type: 'string' },
          namespaced: { type: 'boolean' },
          cluster: { type: 'boolean' },
          webhook: { type: 'boolean' },
          conversion: { type: 'boolean' },
          dir: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (err) {
      process.stderr.write(`kubeloom create api: ${(err as Error).message}\n${usage}`);
      return 2;
    }
    const { values } = parsed;
    if (values.help === true) {
      process.stdout.write(usage);
      return 0;
    }
    if (values.version === undefined || values.kind === undefined || (values.namespaced === true && values.cluster === true)) {
      process.stderr.write(`kubeloom create api: ${values.namespaced === true && values.cluster === true ? '--namespaced and --cluster exclude each other' : '--version and --kind are required'}\n${usage}`);
      return 2;
    }
    const files = await createApi(values.dir ?? '.', {
      group: values.group ?? '',
      version: values.version,
      kind: values.kind,
      namespaced: values.cluster !== true,
      webhook: values.webhook === true,
      conversion: values.conversion === true,
    });
    process.stdout.write(`${files.map((f) => `  ${f}`).join('\n')}\nnext: npm test, then npm run manifests\n`);
    return 0;
  },
};
