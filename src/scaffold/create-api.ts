/**
 * `kubeloom create api` (kubebuilder's `create api` and `create webhook`): for a new kind, its
 * declaration (src/api/<kind>/), a reconciler with its test and, with `webhook`, a defaulter and a
 * validator with their tests, wired into src/setup.ts. For a further version of a kind that exists,
 * the version's schema (a copy of the hub's fields to start from) and, with `conversion`, the spoke's
 * conversions and the kind's conversion webhook. Lines are added to existing files above their
 * `kubeloom:scaffold` comments.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { insertIntoFile } from './anchors.ts';
import { ScaffoldError } from './errors.ts';
import { writeFiles } from './init.ts';
import { kindNames, type KindNames } from './names.ts';
import { indexInsertsForVersion, indexTs, sampleFile, samplesKustomization, sampleYaml, versionTs } from './templates/api.ts';
import { controllerTestTs, controllerTs } from './templates/controller.ts';
import { conversionInserts, conversionTs, spokeConversionTestTs, spokeConversionTs, webhookTestTs, webhookTs } from './templates/webhook.ts';

/** Options of {@link createApi}. */
export interface CreateApiOptions {
  /** The group, without the domain (`batch` → `batch.<domain>`). */
  group: string;
  /** The version, e.g. `v1`. */
  version: string;
  /** The kind, UpperCamelCase. */
  kind: string;
  /** Namespaced (default) or cluster-scoped. */
  namespaced?: boolean;
  /** Also write a defaulting and a validating webhook (new kinds only). */
  webhook?: boolean;
  /** For a further version: write its conversions and the conversion webhook. */
  conversion?: boolean;
}

async function exists(file: string): Promise<boolean> {
  return readFile(file).then(
    () => true,
    () => false,
  );
}

/** The versions a kind's folder declares, in the order index.ts lists them. */
async function declaredVersions(kindDir: string): Promise<string[]> {
  const index = await readFile(path.join(kindDir, 'index.ts'), 'utf8');
  const files = (await readdir(kindDir)).filter((f) => /^v[0-9a-z]+\.ts$/.test(f)).map((f) => f.slice(0, -3));
  return files.sort((a, b) => index.indexOf(`./${a}.ts`) - index.indexOf(`./${b}.ts`));
}

/** Scaffolds the kind (or the kind's new version) in the project at `dir`; returns the files written or changed. */
export async function createApi(dir: string, options: CreateApiOptions): Promise<string[]> {
  let pkg: { kubeloom?: { domain?: string } };
  try {
    pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch (err) {
    throw new ScaffoldError(`${dir} has no readable package.json: run kubeloom init first`, { cause: err });
  }
  const k = kindNames({ group: options.group, version: options.version, kind: options.kind, domain: pkg.kubeloom?.domain ?? '', namespaced: options.namespaced ?? true });
  const kindDir = path.join(dir, 'src', 'api', k.lower);
  if (await exists(path.join(kindDir, 'index.ts'))) return addVersion(dir, k, options);
  if (options.conversion === true) throw new ScaffoldError(`--conversion adds a version to a kind that exists; ${k.kind} does not yet`);
  const files: Record<string, string> = {
    [`src/api/${k.lower}/${k.version}.ts`]: versionTs(k),
    [`src/api/${k.lower}/index.ts`]: indexTs(k),
    [`src/controller/${k.lower}-controller.ts`]: controllerTs(k),
    [`src/controller/${k.lower}-controller.test.ts`]: controllerTestTs(k),
  };
  if (options.webhook === true) {
    files[`src/webhook/${k.lower}-webhook.ts`] = webhookTs(k);
    files[`src/webhook/${k.lower}-webhook.test.ts`] = webhookTestTs(k);
  }
  files[`config/samples/${sampleFile(k)}`] = sampleYaml(k);
  const samplesKustomizationFile = path.join(dir, 'config', 'samples', 'kustomization.yaml');
  const firstSample = !(await exists(samplesKustomizationFile));
  if (firstSample) files['config/samples/kustomization.yaml'] = samplesKustomization();
  const written = await writeFiles(dir, files);
  await insertIntoFile(samplesKustomizationFile, { samples: [`- ${sampleFile(k)}`] }, 'config/samples/kustomization.yaml');
  if (!firstSample) written.push('config/samples/kustomization.yaml');
  const imports = [`import { ${k.plural} } from './api/${k.lower}/index.ts';`, `import { setup${k.kind}Controller } from './controller/${k.lower}-controller.ts';`];
  if (options.webhook === true) imports.push(`import { setup${k.kind}Webhook } from './webhook/${k.lower}-webhook.ts';`);
  await insertIntoFile(
    path.join(dir, 'src', 'setup.ts'),
    { imports, crds: [`${k.plural},`], controllers: [`setup${k.kind}Controller(mgr);`], webhooks: options.webhook === true ? [`setup${k.kind}Webhook(mgr);`] : [] },
    'src/setup.ts',
  );
  return [...written, 'src/setup.ts'];
}

async function addWebhook(dir: string, k: KindNames): Promise<string[]> {
  const written = await writeFiles(dir, { [`src/webhook/${k.lower}-webhook.ts`]: webhookTs(k), [`src/webhook/${k.lower}-webhook.test.ts`]: webhookTestTs(k) });
  await insertIntoFile(path.join(dir, 'src', 'setup.ts'), { imports: [`import { setup${k.kind}Webhook } from './webhook/${k.lower}-webhook.ts';`], webhooks: [`setup${k.kind}Webhook(mgr);`] }, 'src/setup.ts');
  return [...written, 'src/setup.ts'];
}

async function addVersion(dir: string, k: KindNames, options: CreateApiOptions): Promise<string[]> {
  const kindDir = path.join(dir, 'src', 'api', k.lower);
  const versions = await declaredVersions(kindDir);
  const hub = versions[0]!;
  if (versions.includes(k.version)) {
    // kubebuilder's `create webhook` for a kind that exists: the hub version's defaulter and validator.
    if (options.webhook === true && k.version === hub && !(await exists(path.join(dir, 'src', 'webhook', `${k.lower}-webhook.ts`)))) return addWebhook(dir, k);
    throw new ScaffoldError(`${k.kind} ${k.version} already exists (src/api/${k.lower}/${k.version}.ts)${options.webhook === true ? `; --webhook adds webhooks to the hub version ${hub} once` : ''}`);
  }
  if (options.webhook === true) throw new ScaffoldError(`--webhook with a new version: the webhooks of ${k.kind} serve its hub version ${hub}; run create api --version ${hub} --webhook`);
  // The new version starts with the hub's fields.
  const hubText = await readFile(path.join(kindDir, `${hub}.ts`), 'utf8');
  const text = hubText.split(`${k.kind} ${hub}:`).join(`${k.kind} ${k.version}:`).split(`The ${hub} entry`).join(`The ${k.version} entry`).replace(`export const ${hub} = {\n  name: '${hub}' as const,`, `export const ${k.version} = {\n  name: '${k.version}' as const,`);
  if (text === hubText || !text.includes(`export const ${k.version} = {`)) throw new ScaffoldError(`src/api/${k.lower}/${hub}.ts does not have the shape create api wrote; add ${k.version} by hand`);
  const files: Record<string, string> = { [`src/api/${k.lower}/${k.version}.ts`]: text };
  const conversionFile = path.join(dir, 'src', 'webhook', `${k.lower}-conversion.ts`);
  const firstConversion = options.conversion === true && !(await exists(conversionFile));
  if (options.conversion === true) {
    files[`src/webhook/${k.lower}-${k.version}-conversion.ts`] = spokeConversionTs(k, hub);
    files[`src/webhook/${k.lower}-${k.version}-conversion.test.ts`] = spokeConversionTestTs(k, hub);
    if (firstConversion) files[`src/webhook/${k.lower}-conversion.ts`] = conversionTs(k, hub);
  }
  const written = await writeFiles(dir, files);
  await insertIntoFile(path.join(kindDir, 'index.ts'), indexInsertsForVersion(k), `src/api/${k.lower}/index.ts`);
  written.push(`src/api/${k.lower}/index.ts`);
  if (options.conversion === true) {
    await insertIntoFile(conversionFile, conversionInserts(k), `src/webhook/${k.lower}-conversion.ts`);
    if (firstConversion) {
      await insertIntoFile(
        path.join(dir, 'src', 'setup.ts'),
        { imports: [`import { setup${k.kind}Conversion } from './webhook/${k.lower}-conversion.ts';`], webhooks: [`setup${k.kind}Conversion(mgr);`] },
        'src/setup.ts',
      );
      written.push('src/setup.ts');
    }
  }
  return written;
}
