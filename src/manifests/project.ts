/**
 * Reading a project without markers: `kubeloom manifests` imports the project's `src/setup.ts`, the
 * same module its `main.ts` and tests use, and
 * - takes the CRDs from its `crds` export (the `defineCrd` declarations under src/api), and
 * - calls its `setup(mgr)` on a manager that is never started (no connection is opened: the builders
 *   only register), then reads what the controller and webhook builders registered on it
 *   (src/builder/registrations.ts).
 * The project's name comes from package.json (`kubeloom.projectName`, else `name` without a scope),
 * the manager's image from `--image`, else `kubeloom.image`, else `controller:latest`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import { controllerRegistrations, webhookRegistrations } from '../builder/registrations.ts';
import { newManager, type Manager } from '../manager/manager.ts';
import { ManifestError } from './errors.ts';
import type { ManifestInput } from './config.ts';

/** What a project's src/setup.ts exports. */
export interface ProjectSetupModule {
  /** The project's CRD declarations (`defineCrd` results) or CRD manifests. */
  crds?: ReadonlyArray<{ manifest: CustomResourceDefinition } | CustomResourceDefinition>;
  /** Registers the project's controllers and webhooks on the manager. */
  setup?: (mgr: Manager, options?: Record<string, unknown>) => unknown;
}

/** The `kubeloom` field of a project's package.json. */
export interface ProjectConfig {
  /** Overrides the project name taken from package.json's `name`. */
  projectName?: string;
  /** The domain API groups end with (`init --domain`). */
  domain?: string;
  /** The manager's image written to config/manager (`manifests --image` overrides it). */
  image?: string;
  /** The manager serves metrics over HTTPS with authentication and authorization (ManifestInput.secureMetrics). */
  secureMetrics?: boolean;
}

const quiet = { debug() {}, info() {}, error() {} };

/** Reads the project in `dir` into the input of `generateConfig`. */
export async function loadProject(dir: string, options: { image?: string; setupFile?: string } = {}): Promise<ManifestInput> {
  let pkg: { name?: string; kubeloom?: ProjectConfig };
  try {
    pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch (err) {
    throw new ManifestError(`cannot read ${path.join(dir, 'package.json')}: ${(err as Error).message}`, { cause: err });
  }
  const projectName = pkg.kubeloom?.projectName ?? (pkg.name ?? '').replace(/^@[^/]+\//, '');
  const setupFile = path.resolve(dir, options.setupFile ?? 'src/setup.ts');
  let mod: ProjectSetupModule;
  try {
    mod = (await import(pathToFileURL(setupFile).href)) as ProjectSetupModule;
  } catch (err) {
    throw new ManifestError(`cannot import ${path.relative(dir, setupFile)}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof mod.setup !== 'function') throw new ManifestError(`${path.relative(dir, setupFile)} exports no setup(mgr) function`);
  // Never started: the REST client points nowhere and is never used.
  const mgr = newManager({ host: 'https://127.0.0.1:1' }, { logger: quiet });
  await mod.setup(mgr);
  const crds = (mod.crds ?? []).map((c) => ('manifest' in c ? c.manifest : c));
  const image = options.image ?? pkg.kubeloom?.image;
  return { projectName, ...(image !== undefined ? { image } : {}), ...(pkg.kubeloom?.secureMetrics === true ? { secureMetrics: true } : {}), crds, controllers: controllerRegistrations(mgr), webhooks: webhookRegistrations(mgr) };
}
