import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  InvalidKubeConfigError,
  KubeConfigParseError,
  KubeConfigReadError,
  loadKubeConfig,
  namespaceOf,
  NoConfigurationError,
  parseKubeConfig,
  restConfigFrom,
} from './index.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-load-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(rel: string, text: string): Promise<string> {
  const p = path.join(dir, rel);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, text);
  return p;
}

const empty = path.join('/nonexistent-home-for-tests');

describe('loadKubeConfig: KUBECONFIG precedence', () => {
  test('for each named cluster, user and context the first file that defines it wins; current-context from the first file that sets it', async () => {
    const a = await file(
      'prec/a/config',
      `clusters:
- name: shared
  cluster: {server: https://a.example:6443, certificate-authority: ca.crt}
users:
- name: alice
  user: {tokenFile: tokens/alice}
contexts:
- name: shared
  context: {cluster: shared, user: alice, namespace: from-a}
`,
    );
    const b = await file(
      'prec/b/config',
      `current-context: shared
clusters:
- name: shared
  cluster: {server: https://b.example:6443}
- name: only-b
  cluster: {server: https://only-b.example, certificate-authority: ../certs/ca.pem}
users:
- name: alice
  user: {token: from-b}
- name: bob
  user: {client-certificate: bob.crt, client-key: keys/bob.key}
contexts:
- name: shared
  context: {cluster: only-b, user: bob}
- name: only-b
  context: {cluster: only-b, user: bob}
`,
    );
    const c = await file('prec/c/config', `current-context: only-b\n`);
    const env = { KUBECONFIG: [a, path.join(dir, 'prec/missing'), b, c, a].join(path.delimiter) };
    const config = await loadKubeConfig({ env, homeDir: empty });

    assert.deepEqual(config.source, { kind: 'files', files: [a, b, c] });
    assert.equal(config.currentContext, 'shared');
    assert.deepEqual(Object.keys(config.clusters).sort(), ['only-b', 'shared']);
    assert.equal(config.clusters['shared']!.server, 'https://a.example:6443');
    // Relative paths are resolved against the directory of the file that holds them.
    assert.equal(config.clusters['shared']!.certificateAuthority, path.join(dir, 'prec/a/ca.crt'));
    assert.equal(config.clusters['only-b']!.certificateAuthority, path.join(dir, 'prec/certs/ca.pem'));
    // Entries are never merged field by field: alice comes whole from a (no token from b).
    assert.equal(config.authInfos['alice']!.tokenFile, path.join(dir, 'prec/a/tokens/alice'));
    assert.equal(config.authInfos['alice']!.token, undefined);
    assert.equal(config.authInfos['alice']!.locationOfOrigin, a);
    assert.equal(config.authInfos['bob']!.clientCertificate, path.join(dir, 'prec/b/bob.crt'));
    assert.equal(config.authInfos['bob']!.clientKey, path.join(dir, 'prec/b/keys/bob.key'));
    assert.deepEqual({ ...config.contexts['shared'] }, { cluster: 'shared', authInfo: 'alice', namespace: 'from-a', locationOfOrigin: a });
  });

  const table: { name: string; files: string[]; want: string }[] = [
    { name: 'the first file sets it', files: ['one', 'two'], want: 'ctx-one' },
    { name: 'a file without it is skipped', files: ['none', 'two', 'one'], want: 'ctx-two' },
    { name: 'a later duplicate of the first file changes nothing', files: ['two', 'one', 'two'], want: 'ctx-two' },
  ];
  for (const row of table) {
    test(`current-context: ${row.name}`, async () => {
      await file('cc/one', 'current-context: ctx-one\n');
      await file('cc/two', 'current-context: ctx-two\n');
      await file('cc/none', 'clusters: []\n');
      const env = { KUBECONFIG: row.files.map((f) => path.join(dir, 'cc', f)).join(path.delimiter) };
      const config = await loadKubeConfig({ env, homeDir: empty });
      assert.equal(config.currentContext, row.want);
    });
  }

  test('an explicit path wins over KUBECONFIG and must exist', async () => {
    const explicit = await file('explicit/config', 'current-context: explicit\n');
    const other = await file('explicit/other', 'current-context: other\n');
    const config = await loadKubeConfig({ path: explicit, env: { KUBECONFIG: other }, homeDir: empty });
    assert.equal(config.currentContext, 'explicit');

    const missing = path.join(dir, 'explicit/missing');
    await assert.rejects(loadKubeConfig({ path: missing, env: {}, homeDir: empty }), (err: unknown) => {
      assert.ok(err instanceof KubeConfigReadError);
      assert.equal(err.file, missing);
      assert.match(err.message, /ENOENT/);
      return true;
    });
  });

  test('without KUBECONFIG, ~/.kube/config is used', async () => {
    await file('home/.kube/config', 'current-context: from-home\n');
    const config = await loadKubeConfig({ env: {}, homeDir: path.join(dir, 'home') });
    assert.equal(config.currentContext, 'from-home');
    assert.deepEqual(config.source, { kind: 'files', files: [path.join(dir, 'home/.kube/config')] });
  });

  test('KUBECONFIG set: ~/.kube/config is not consulted even when every listed file is missing', async () => {
    await file('home2/.kube/config', 'current-context: from-home\n');
    await assert.rejects(
      loadKubeConfig({ env: { KUBECONFIG: path.join(dir, 'nope') }, homeDir: path.join(dir, 'home2'), inClusterRoot: path.join(dir, 'no-root') }),
      NoConfigurationError,
    );
  });

  test('nothing anywhere: NoConfigurationError listing every place searched', async () => {
    const root = path.join(dir, 'empty-root');
    await assert.rejects(loadKubeConfig({ env: {}, homeDir: path.join(dir, 'nohome'), inClusterRoot: root }), (err: unknown) => {
      assert.ok(err instanceof NoConfigurationError);
      assert.equal(err.code, 'ERR_NO_CONFIGURATION');
      assert.deepEqual(err.searched, [path.join(dir, 'nohome/.kube/config'), `in-cluster (${path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount')})`]);
      return true;
    });
  });

  test('no files but running in a pod: the in-cluster configuration, with server/token/namespace overrides', async () => {
    const root = path.join(dir, 'pod');
    await file('pod/var/run/secrets/kubernetes.io/serviceaccount/token', 'sa-token');
    await file('pod/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'team-a\n');
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const config = await loadKubeConfig({ env, homeDir: path.join(dir, 'nohome'), inClusterRoot: root });
    assert.deepEqual(config.source, { kind: 'in-cluster', root });
    assert.equal(config.currentContext, 'in-cluster');
    assert.equal(config.clusters['in-cluster']!.server, 'https://10.0.0.1:443');
    assert.equal(config.authInfos['in-cluster']!.tokenFile, path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount/token'));
    assert.equal(config.contexts['in-cluster']!.namespace, 'team-a');

    const overridden = await loadKubeConfig({
      env,
      homeDir: path.join(dir, 'nohome'),
      inClusterRoot: root,
      overrides: { namespace: 'ns2', token: 'flag-token' },
    });
    assert.equal(overridden.authInfos['in-cluster']!.token, 'flag-token');
    assert.equal(overridden.authInfos['in-cluster']!.tokenFile, undefined);
    assert.equal(overridden.contexts['in-cluster']!.namespace, 'ns2');
  });
});

test('files that select no context: in a pod the in-cluster configuration wins (as client-go); elsewhere the error says what is missing', async () => {
  const root = path.join(dir, 'pod3');
  await file('pod3/var/run/secrets/kubernetes.io/serviceaccount/token', 'sa-token');
  const p = await file('nocontext/config', 'clusters:\n- name: c\n  cluster: {server: https://h}\n');
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const inPod = await loadKubeConfig({ path: p, env, inClusterRoot: root });
  assert.deepEqual(inPod.source, { kind: 'in-cluster', root });
  const outside = await loadKubeConfig({ path: p, env: {}, inClusterRoot: root });
  assert.deepEqual(outside.source, { kind: 'files', files: [p] });
  await assert.rejects(restConfigFrom(outside), /current-context: is not set and no context was given/);
  // Selecting a context explicitly keeps the files even in a pod.
  await file('nocontext/with-ctx', 'clusters:\n- name: c\n  cluster: {server: https://h}\ncontexts:\n- {name: x, context: {cluster: c}}\n');
  const chosen = await loadKubeConfig({ path: path.join(dir, 'nocontext/with-ctx'), env, inClusterRoot: root, context: 'x' });
  assert.equal((await restConfigFrom(chosen)).host, 'https://h');
});

test('in a pod, a context that names no namespace means the pod namespace: POD_NAMESPACE, else the service account file (DeferredLoadingClientConfig.Namespace)', async () => {
  const root = path.join(dir, 'pod4');
  await file('pod4/var/run/secrets/kubernetes.io/serviceaccount/token', 'sa-token');
  await file('pod4/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'from-file\n');
  const p = await file(
    'ns/config',
    'current-context: bare\nclusters:\n- name: c\n  cluster: {server: https://h}\ncontexts:\n- {name: bare, context: {cluster: c}}\n- {name: explicit-default, context: {cluster: c, namespace: default}}\n- {name: team, context: {cluster: c, namespace: team}}\n',
  );
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const inPod = await loadKubeConfig({ path: p, env, inClusterRoot: root });
  assert.equal(namespaceOf(inPod), 'from-file');
  assert.equal(namespaceOf(inPod, { context: 'explicit-default' }), 'default', 'an explicit default is kept');
  assert.equal(namespaceOf(inPod, { context: 'team' }), 'team');
  assert.equal(namespaceOf(await loadKubeConfig({ path: p, env: { ...env, POD_NAMESPACE: 'from-env' }, inClusterRoot: root })), 'from-env');
  assert.equal(namespaceOf(await loadKubeConfig({ path: p, env, inClusterRoot: root, overrides: { namespace: 'flag' } })), 'flag');
  // Outside a pod (no service environment, or no token file): default.
  assert.equal(namespaceOf(await loadKubeConfig({ path: p, env: {}, inClusterRoot: root })), 'default');
  assert.equal(namespaceOf(await loadKubeConfig({ path: p, env, inClusterRoot: path.join(dir, 'no-pod') })), 'default');
});

test('no files and --server: a configuration from the flags alone, not the in-cluster one (as upstream)', async () => {
  const root = path.join(dir, 'pod2');
  await file('pod2/var/run/secrets/kubernetes.io/serviceaccount/token', 'sa-token');
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const config = await loadKubeConfig({ env, homeDir: empty, inClusterRoot: root, overrides: { server: 'https://flags:6443', token: 't' } });
  const rest = await restConfigFrom(config);
  assert.equal(rest.host, 'https://flags:6443');
  assert.equal(rest.bearerToken, 't');
  assert.equal(rest.bearerTokenFile, undefined);
});

describe('loadKubeConfig: overrides', () => {
  const base = `current-context: dev
clusters:
- name: dev
  cluster: {server: https://dev:6443, tls-server-name: dev.internal, certificate-authority: ca.crt}
- name: prod
  cluster: {server: https://prod:6443}
users:
- name: dev-user
  user: {token: dev-token, as: someone}
- name: prod-user
  user: {client-certificate: prod.crt, client-key: prod.key}
contexts:
- name: dev
  context: {cluster: dev, user: dev-user, namespace: dev-ns}
- name: prod
  context: {cluster: prod, user: prod-user}
`;
  type Row = {
    name: string;
    options: Parameters<typeof loadKubeConfig>[0];
    check: (c: Awaited<ReturnType<typeof loadKubeConfig>>, d: string) => void;
  };
  const rows: Row[] = [
    { name: 'context option selects another context', options: { context: 'prod' }, check: (c) => assert.equal(c.currentContext, 'prod') },
    { name: 'overrides.context wins over the context option', options: { context: 'prod', overrides: { context: 'dev' } }, check: (c) => assert.equal(c.currentContext, 'dev') },
    {
      name: 'cluster and user switch the entries used by the context',
      options: { overrides: { cluster: 'prod', user: 'prod-user' } },
      check: (c) => assert.deepEqual([c.contexts['dev']!.cluster, c.contexts['dev']!.authInfo], ['prod', 'prod-user']),
    },
    { name: 'namespace', options: { overrides: { namespace: 'other' } }, check: (c) => assert.equal(c.contexts['dev']!.namespace, 'other') },
    {
      name: 'server replaces the server and clears tls-server-name',
      options: { overrides: { server: 'https://elsewhere:1' } },
      check: (c) => {
        assert.equal(c.clusters['dev']!.server, 'https://elsewhere:1');
        assert.equal(c.clusters['dev']!.tlsServerName, undefined);
      },
    },
    {
      name: 'server with tls-server-name keeps the given name',
      options: { overrides: { server: 'https://elsewhere:1', tlsServerName: 'given' } },
      check: (c) => assert.equal(c.clusters['dev']!.tlsServerName, 'given'),
    },
    {
      name: 'insecure-skip-tls-verify clears the configured CA',
      options: { overrides: { insecureSkipTlsVerify: true } },
      check: (c) => {
        assert.equal(c.clusters['dev']!.insecureSkipTlsVerify, true);
        assert.equal(c.clusters['dev']!.certificateAuthority, undefined);
      },
    },
    {
      name: 'certificate-authority is resolved against the working directory',
      options: { overrides: { certificateAuthority: 'rel/ca.pem' } },
      check: (c) => assert.equal(c.clusters['dev']!.certificateAuthority, path.resolve('rel/ca.pem')),
    },
    {
      name: 'token replaces the configured credentials but keeps impersonation',
      options: { overrides: { token: 'flag-token' } },
      check: (c) => assert.deepEqual({ ...c.authInfos['dev-user'] }, { token: 'flag-token', impersonate: 'someone', locationOfOrigin: c.authInfos['dev-user']!.locationOfOrigin }),
    },
    {
      name: 'unrelated entries are untouched',
      options: { overrides: { server: 'https://x:1', token: 't' } },
      check: (c, d) => {
        assert.equal(c.clusters['prod']!.server, 'https://prod:6443');
        assert.equal(c.authInfos['prod-user']!.clientCertificate, path.join(d, 'prod.crt'));
      },
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const p = await file('overrides/config', base);
      const config = await loadKubeConfig({ path: p, env: {}, homeDir: empty, ...row.options });
      row.check(config, path.dirname(p));
    });
  }

  test('overrides do not paper over a current-context naming a missing context', async () => {
    const p = await file('overrides/dangling', 'current-context: gone\nclusters:\n- name: c\n  cluster: {server: https://h}\n');
    const config = await loadKubeConfig({ path: p, env: {}, homeDir: empty, overrides: { namespace: 'x', server: 'https://y' } });
    await assert.rejects(restConfigFrom(config), /current-context: context "gone" does not exist/);
  });

  for (const [flag, overrides] of [
    ['--context', { context: 'nope' }],
    ['--cluster', { cluster: 'nope' }],
    ['--user', { user: 'nope' }],
  ] as const) {
    test(`an unknown name given with ${flag} is an error naming it`, async () => {
      const p = await file('overrides/config', base);
      await assert.rejects(loadKubeConfig({ path: p, env: {}, homeDir: empty, overrides }), (err: unknown) => {
        assert.ok(err instanceof InvalidKubeConfigError);
        assert.equal(err.field, flag);
        assert.match(err.message, /"nope" does not exist/);
        return true;
      });
    });
  }
});

describe('malformed kubeconfigs: errors name the file and the field', () => {
  test('invalid YAML: file, line and column, no snippet of the file', async () => {
    const p = await file('bad/yaml', 'users:\n- name: u\n  user:\n    token: s3cr3t-token\n   bad: [\n');
    await assert.rejects(loadKubeConfig({ path: p, env: {} }), (err: unknown) => {
      assert.ok(err instanceof KubeConfigParseError);
      assert.equal(err.file, p);
      assert.equal(typeof err.line, 'number');
      assert.ok(err.message.startsWith(`error loading config file ${p}:${err.line}:${err.column}: `), err.message);
      assert.doesNotMatch(err.message, /s3cr3t/);
      assert.doesNotMatch(err.message, /\n/);
      assert.equal(err.cause, undefined);
      return true;
    });
  });

  const rows: { name: string; yaml: string; problems: [string, RegExp][] }[] = [
    { name: 'top level is not a mapping', yaml: '- a\n- b\n', problems: [['(document)', /must be a mapping, got a list/]] },
    { name: 'wrong kind', yaml: 'kind: Pod\n', problems: [['kind', /must be Config/]] },
    { name: 'clusters is not a list', yaml: 'clusters: {a: 1}\n', problems: [['clusters', /must be a list, got a mapping/]] },
    { name: 'entry without a name', yaml: 'clusters:\n- cluster: {server: x}\n', problems: [['clusters[0].name', /is required/]] },
    {
      name: 'server of the wrong type',
      yaml: 'clusters:\n- name: c\n  cluster: {server: [x]}\n',
      problems: [['clusters["c"].cluster.server', /must be a string, got a list/]],
    },
    {
      name: 'boolean field with a string',
      yaml: 'clusters:\n- name: c\n  cluster: {server: x, insecure-skip-tls-verify: "yes"}\n',
      problems: [['clusters["c"].cluster.insecure-skip-tls-verify', /must be true or false, got a string/]],
    },
    {
      name: 'bad base64, the value is not quoted',
      yaml: 'users:\n- name: u\n  user: {client-key-data: "not base64!!"}\n',
      problems: [['users["u"].user.client-key-data', /^is not valid base64$/]],
    },
    {
      name: 'token of the wrong type, the value is not quoted',
      yaml: 'users:\n- name: u\n  user: {token: {secret: hunter2}}\n',
      problems: [['users["u"].user.token', /^must be a string, got a mapping$/]],
    },
    {
      name: 'exec args not strings',
      yaml: 'users:\n- name: u\n  user:\n    exec: {command: x, args: [a, {b: 1}]}\n',
      problems: [['users["u"].user.exec.args[1]', /must be a string/]],
    },
    {
      name: 'duplicate names in one file',
      yaml: 'contexts:\n- name: a\n  context: {cluster: c}\n- name: a\n  context: {cluster: d}\n',
      problems: [['contexts["a"]', /duplicate name "a" in contexts/]],
    },
    {
      name: 'several problems are all reported',
      yaml: 'clusters:\n- name: c\n  cluster: {server: 1.5, proxy-url: [x]}\ncurrent-context: [a]\n',
      problems: [
        ['clusters["c"].cluster.proxy-url', /must be a string/],
        ['current-context', /must be a string/],
      ],
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const p = await file(`bad/${row.name.replace(/\W+/g, '-')}`, row.yaml);
      await assert.rejects(loadKubeConfig({ path: p, env: {} }), (err: unknown) => {
        assert.ok(err instanceof InvalidKubeConfigError, String(err));
        assert.equal(err.code, 'ERR_KUBECONFIG_INVALID');
        assert.deepEqual(
          err.problems.map((pr) => [pr.file, pr.field]),
          row.problems.map(([field]) => [p, field]),
        );
        row.problems.forEach(([, re], i) => assert.match(err.problems[i]!.message, re));
        assert.ok(err.message.includes(p), err.message);
        assert.doesNotMatch(err.message, /hunter2|not base64!!/);
        return true;
      });
    });
  }

  test('numbers stay strings (a namespace or token written as digits) except in extension payloads; an empty file is an empty config', async () => {
    const config = parseKubeConfig('contexts:\n- name: c\n  context: {cluster: x, namespace: 0123}\nusers:\n- name: u\n  user: {token: 1e3}\n');
    assert.equal(config.contexts['c']!.namespace, '0123');
    assert.equal(config.authInfos['u']!.token, '1e3');
    const ext = parseKubeConfig('clusters:\n- name: c\n  cluster:\n    server: https://h\n    extensions:\n    - {name: e, extension: {n: 12, s: "x"}}\n');
    assert.deepEqual(ext.clusters['c']!.extensions, { e: { n: 12, s: 'x' } });
    assert.deepEqual({ ...parseKubeConfig('  \n') }, { preferences: {}, clusters: {}, authInfos: {}, contexts: {}, currentContext: '' });
  });

  test('entry names such as __proto__ are plain entries', () => {
    const config = parseKubeConfig('clusters:\n- name: __proto__\n  cluster: {server: https://x}\n');
    assert.equal(Object.getPrototypeOf(config.clusters), Object.prototype);
    assert.equal(Object.hasOwn(config.clusters, '__proto__'), true);
    assert.equal(Object.getOwnPropertyDescriptor(config.clusters, '__proto__')?.value.server, 'https://x');
  });

  test('v1beta1 exec plugins default interactiveMode to IfAvailable, v1 leaves it unset', () => {
    const config = parseKubeConfig(`users:
- name: beta
  user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1beta1}}
- name: v1
  user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1}}
`);
    assert.equal(config.authInfos['beta']!.exec!.interactiveMode, 'IfAvailable');
    assert.equal(config.authInfos['v1']!.exec!.interactiveMode, undefined);
  });

  test('an exec command is resolved only when it contains a path separator', () => {
    const config = parseKubeConfig(
      `users:
- name: a
  user: {exec: {command: bin/plugin, apiVersion: v}}
- name: b
  user: {exec: {command: plugin, apiVersion: v}}
- name: c
  user: {exec: {command: /abs/plugin, apiVersion: v}}
`,
      { file: '/etc/kube/config' },
    );
    assert.equal(config.authInfos['a']!.exec!.command, '/etc/kube/bin/plugin');
    assert.equal(config.authInfos['b']!.exec!.command, 'plugin');
    assert.equal(config.authInfos['c']!.exec!.command, '/abs/plugin');
  });
});
