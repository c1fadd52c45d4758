/**
 * The files `kubeloom init` writes (kubebuilder's `init`: go.mod, cmd/main.go, Makefile, Dockerfile,
 * .golangci.yml, config/, the test suite): package.json, a strict tsconfig.json, eslint.config.js,
 * src/main.ts, src/setup.ts, test/env.ts, a Dockerfile, .dockerignore, .gitignore and README.md. Each
 * is a function of the project's settings returning the file's text.
 */
import { anchor } from '../anchors.ts';

/** Settings of a new project. */
export interface ProjectSettings {
  /** The project's name (package name, kustomize namePrefix). */
  name: string;
  /** The domain API groups end with. */
  domain: string;
  /** The `kubeloom` dependency: a version range or `file:…tgz`. */
  kubeloomSpec: string;
}

// What this repository's package.json pins, so a new project builds with what kubeloom is tested on.
// ESLint from 9.22 (eslint/config's defineConfig); typescript-eslint 8 supports TypeScript 5.9.
const versions = { promClient: '^15.1.3', typesNode: '^24.10.0', node: '^24.9.0', typescript: '~5.9.3', eslint: '^9.39.0', typescriptEslint: '^8.73.0' } as const;

/** package.json. */
export function packageJson(p: ProjectSettings): string {
  const pkg = {
    name: p.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=24' },
    scripts: {
      start: 'node src/main.ts',
      test: 'tsc -p tsconfig.json && node --test "src/**/*.test.ts"',
      typecheck: 'tsc -p tsconfig.json',
      lint: 'eslint .',
      'lint-fix': 'eslint . --fix',
      build: 'tsc -p tsconfig.json',
      manifests: 'kubeloom manifests',
      deploy: 'kubectl apply -k config/default',
      undeploy: 'kubectl delete -k config/default',
      'docker-build': 'docker build -t ${IMG:-controller:latest} .',
    },
    dependencies: { kubeloom: p.kubeloomSpec, 'prom-client': versions.promClient },
    devDependencies: {
      '@eslint/js': versions.eslint,
      '@types/node': versions.typesNode,
      eslint: versions.eslint,
      node: versions.node,
      typescript: versions.typescript,
      'typescript-eslint': versions.typescriptEslint,
    },
    // npm 12 runs only the install scripts named here: `node` installs the Node.js 24 binary the
    // scripts run on, whatever Node.js the machine has.
    allowScripts: { node: true },
    // secureMetrics: main.ts serves metrics over HTTPS with authentication and authorization, so
    // `kubeloom manifests` writes the metrics-auth and metrics-reader roles and the :8443 Service port.
    kubeloom: { domain: p.domain, layout: 'kubeloom/v1', secureMetrics: true },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** tsconfig.json: strict, nodenext, type-check only (Node.js runs the .ts files as they are). */
export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'es2023',
      lib: ['es2023', 'esnext.disposable'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      // Node.js strips types: only syntax it can erase, imports written with their .ts extension.
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['src', 'test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * eslint.config.js (kubebuilder's .golangci.yml and `make lint`): ESLint's recommended rules and
 * typescript-eslint's type-aware ones, which catch the mistakes async code makes (a promise nobody
 * awaits, a promise where a callback is expected).
 */
export function eslintConfig(): string {
  return `// Lint configuration (npm run lint): ESLint's recommended rules and typescript-eslint's type-aware
// ones; no-floating-promises and no-misused-promises catch the async mistakes a controller makes.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/**', 'config/**', '.kubeloom/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test() and friends return promises the runner awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['eslint.config.js'], extends: [tseslint.configs.disableTypeChecked] },
);
`;
}

/** src/main.ts: the manager, as kubebuilder's cmd/main.go. */
export function mainTs(p: ProjectSettings): string {
  return `/**
 * The operator's entry point (kubebuilder's cmd/main.go): a manager with health probes, metrics,
 * leader election (--leader-elect), the controllers and webhooks of ./setup.ts, graceful shutdown on
 * SIGTERM/SIGINT and an exit code a Deployment understands (0 after a clean stop, 1 otherwise).
 *
 * Metrics are served securely, as kubebuilder's (--metrics-secure, on by default): HTTPS on :8443, each
 * scrape's bearer token checked with a TokenReview and its user authorized with a SubjectAccessReview
 * (get /metrics): bind the scraper to the metrics-reader ClusterRole of config/rbac.
 * --no-metrics-secure serves plain HTTP (then set "secureMetrics": false in package.json, so that
 * \`npm run manifests\` writes the :8080 port).
 *
 * Which cluster: --kubeconfig PATH; else, inside a pod, its service account; else (npm start on a
 * laptop) an embedded kubeloom API server with the CRDs installed and a kubeconfig for kubectl
 * written to .kubeloom/kubeconfig. Webhooks are off against the embedded server (no certificates):
 * ENABLE_WEBHOOKS=false turns them off elsewhere too.
 */
import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { inClusterConfig, isInClusterPossible, loadKubeConfig, restConfigFrom } from 'kubeloom/clientcmd';
import { exitCodeFor, newManager, setupSignalHandler, withAuthenticationAndAuthorization } from 'kubeloom/manager';
import type { RestConfig } from 'kubeloom/rest';
import { crds, setup } from './setup.ts';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    kubeconfig: { type: 'string' },
    'leader-elect': { type: 'boolean', default: false },
    'metrics-bind-address': { type: 'string', default: ':8443' },
    'metrics-secure': { type: 'boolean', default: true },
    'health-probe-bind-address': { type: 'string', default: ':8081' },
  },
});

/** The cluster to run against, and whether it is the embedded development server. */
async function cluster(): Promise<{ config: RestConfig; embedded: boolean }> {
  if (values.kubeconfig !== undefined) return { config: await restConfigFrom(await loadKubeConfig({ path: values.kubeconfig })), embedded: false };
  if (await isInClusterPossible()) return { config: await inClusterConfig(), embedded: false };
  const { startApiServer } = await import('kubeloom/apiserver');
  const { installCrds } = await import('kubeloom/testing');
  const server = await startApiServer();
  await installCrds(server, { crds: crds.map((c) => c.manifest) });
  await mkdir('.kubeloom', { recursive: true });
  await server.writeKubeconfig('.kubeloom/kubeconfig');
  const resources = crds.map((c) => c.manifest.spec.names.plural).join(',') || 'namespaces';
  console.error(\`embedded API server at \${server.url}; try: KUBECONFIG=.kubeloom/kubeconfig kubectl get \${resources}\`);
  return { config: { host: server.url }, embedded: true };
}

const { config, embedded } = await cluster();
const mgr = newManager(config, {
  metricsBindAddress: values['metrics-bind-address'],
  ...(values['metrics-secure'] ? { metricsServer: { secureServing: true, filterProvider: withAuthenticationAndAuthorization } } : {}),
  healthProbeBindAddress: values['health-probe-bind-address'],
  ...(values['leader-elect'] === true ? { leaderElection: { id: '${p.name}.${p.domain || 'kubeloom.io'}', namespace: process.env['POD_NAMESPACE'] ?? 'default' } } : {}),
});
mgr.addHealthzCheck('healthz', () => undefined);
mgr.addReadyzCheck('readyz', mgr.cacheSyncedCheck());
setup(mgr, { enableWebhooks: !embedded && process.env['ENABLE_WEBHOOKS'] !== 'false' });

const error = await mgr.start(setupSignalHandler()).then(
  () => undefined,
  (err: unknown) => err,
);
if (error !== undefined) console.error('problem running manager:', error);
process.exit(exitCodeFor(error));
`;
}

/** src/setup.ts: the one place controllers, webhooks and CRDs are wired. */
export function setupTs(): string {
  return `/**
 * The project's wiring: every CRD it declares and every controller and webhook it runs. main.ts and
 * the tests call setup(mgr); \`npm run manifests\` (kubeloom manifests) imports this module too, calls
 * setup on a manager it never starts and writes config/ from what was registered: CRDs from \`crds\`,
 * RBAC from the controllers' for/owns/watches and withRbac rules, webhook configurations from the
 * webhook builders. \`kubeloom create api\` adds lines above the kubeloom:scaffold comments.
 */
import type { CustomResourceDefinition } from 'kubeloom/api/apiextensions/v1';
import type { Manager } from 'kubeloom/manager';
${anchor('imports')}

/** The CRDs of src/api: installed by the tests, written to config/crd by \`npm run manifests\`. */
export const crds: ReadonlyArray<{ readonly manifest: CustomResourceDefinition }> = [
  ${anchor('crds')}
];

/** Options of {@link setup}. */
export interface SetupOptions {
  /** Register the admission and conversion webhooks (kubebuilder's ENABLE_WEBHOOKS). Default true. */
  enableWebhooks?: boolean;
}

/** Registers the controllers and webhooks on \`mgr\`. */
export function setup(mgr: Manager, options: SetupOptions = {}): void {
  ${anchor('controllers')}
  if (options.enableWebhooks ?? true) {
    ${anchor('webhooks')}
  }
}
`;
}

/** test/env.ts: the embedded API server with the CRDs and the controllers (kubebuilder's suite_test.go). */
export function testEnvTs(): string {
  return `/**
 * The test environment (kubebuilder's suite_test.go with envtest): kubeloom's embedded API server on a
 * free port, the CRDs of src/api installed, and a manager running the controllers of setup(). Webhooks
 * are off (their logic is tested by calling it; the API server would need certificates to call them).
 * Everything stops when the test ends.
 */
import type { TestContext } from 'node:test';
import { Client } from 'kubeloom/client';
import { newManager } from 'kubeloom/manager';
import { RestClient } from 'kubeloom/rest';
import { installCrds, startApiServer } from 'kubeloom/testing';
import { crds, setup } from '../src/setup.ts';

/** A running test environment. */
export interface TestEnv {
  /** A client reading straight from the API server (not from the manager's cache). */
  client: Client;
}

const quiet = { debug() {}, info() {}, error() {} };

/** Starts the environment for test \`t\`; it stops when \`t\` ends. */
export async function startTestEnv(t: TestContext): Promise<TestEnv> {
  const server = await startApiServer();
  await installCrds(server, { crds: crds.map((c) => c.manifest) });
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet, gracefulShutdownTimeoutMs: 5_000 });
  setup(mgr, { enableWebhooks: false });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  // The test's own client, apart from the manager's: \`kubeloom rbac learn -- npm test\` then counts
  // only the operator's requests, not what the test itself creates and reads.
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(async () => {
    stop.abort();
    await running;
    await rest.close();
    await server.stop();
  });
  return { client: new Client({ rest }) };
}
`;
}

/** Dockerfile: multi-stage, Node.js 24 slim, non-root; runs the TypeScript as it is. */
export function dockerfile(): string {
  return `# The operator's image. Node.js 24 runs the TypeScript sources directly (type stripping), so the
# build stage only installs the production dependencies; the runtime stage is slim and non-root.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the image has its own Node.js; the \`node\` devDependency is not installed.
RUN npm ci --omit=dev --ignore-scripts

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
# The node image's unprivileged user (uid 1000); config/manager sets runAsNonRoot.
USER 1000:1000
ENTRYPOINT ["node", "src/main.ts"]
`;
}

/** .dockerignore. */
export function dockerignore(): string {
  return ['node_modules', '.kubeloom', 'config', 'test', '**/*.test.ts', '.git', ''].join('\n');
}

/** .gitignore. */
export function gitignore(): string {
  return ['node_modules', '.kubeloom', ''].join('\n');
}

/** README.md of the project. */
export function readme(p: ProjectSettings): string {
  return `# ${p.name}

A Kubernetes operator built with [kubeloom](https://github.com/kubeloom/kubeloom).

## Develop

    npm install
    npx kubeloom create api --group apps --version v1 --kind Widget --webhook
    npm test            # type-check, then the tests against kubeloom's embedded API server
    npm start           # run the manager against an embedded API server (or -- --kubeconfig PATH)

## Deploy

    npm run manifests                    # regenerate config/ from src/setup.ts and src/api
    docker build -t registry.example/${p.name}:0.1.0 .
    npm pkg set kubeloom.image=registry.example/${p.name}:0.1.0 && npm run manifests
    npm run deploy                       # kubectl apply -k config/default

Webhooks need a serving certificate in the Secret \`webhook-server-cert\`: with cert-manager
installed, apply \`config/certmanager\` instead of \`config/default\`.

## Layout

| path | what |
| --- | --- |
| src/api/<kind>/ | the kind's declaration: one file per version (schema → TypeScript type and CRD schema) |
| src/controller/ | reconcilers, each with its test |
| src/webhook/ | defaulters, validators and conversions, each with its test |
| src/setup.ts | the wiring: CRDs, controllers, webhooks (read by main.ts, the tests and \`kubeloom manifests\`) |
| src/main.ts | the manager: probes, secure metrics, leader election, signals |
| eslint.config.js | \`npm run lint\`: ESLint with typescript-eslint's type-aware rules |
| test/env.ts | the test environment: embedded API server, CRDs, controllers |
| config/ | kustomize manifests, generated by \`npm run manifests\` (do not edit; overlay them) |
`;
}

/** src/setup.test.ts: the wiring starts against the embedded API server. */
export function setupTestTs(): string {
  return `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kinds } from 'kubeloom/client';
import { startTestEnv } from '../test/env.ts';

test('the manager starts with every CRD and controller of setup() on the embedded API server', async (t) => {
  const env = await startTestEnv(t);
  const namespaces = await env.client.list(kinds.coreV1.namespaces);
  assert.ok(namespaces.some((n) => n.metadata?.name === 'default'));
});
`;
}
