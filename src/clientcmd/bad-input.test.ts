import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { test } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { InvalidKubeConfigError, KubeConfigParseError, parseKubeConfig, restConfigFrom, UnsupportedAuthProviderError, NoConfigurationError, KubeConfigReadError } from './index.ts';

const SECRET = 'S3CRET-VALUE';

function typed(err: unknown): boolean {
  return err instanceof KubeConfigParseError || err instanceof InvalidKubeConfigError;
}

// Values shaped like kubeconfigs, with random types in random places. SECRET appears only where a
// secret lives (token, password, key data, exec args and env, auth-provider config); names, kinds and
// versions may be quoted in messages and are generated without it.
const plainScalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('a', 'b'));
const secretScalar = fc.oneof(plainScalar, fc.constant(SECRET));
const leafOf = (s: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(s, fc.array(s, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), s, { maxKeys: 3 }));
const plain = leafOf(plainScalar);
const secretLeaf = leafOf(secretScalar);
const secretKeys = new Set(['token', 'password', 'client-key-data', 'args', 'env', 'config']);
const field = (keys: string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(Object.fromEntries(keys.map((k) => [k, secretKeys.has(k) ? secretLeaf : plain])), { requiredKeys: [] });
const clusterKeys = ['server', 'tls-server-name', 'insecure-skip-tls-verify', 'certificate-authority', 'certificate-authority-data', 'proxy-url', 'extensions'];
const userKeys = ['token', 'tokenFile', 'password', 'username', 'client-key-data', 'client-certificate-data', 'as', 'as-groups', 'as-user-extra'];
const exec = field(['command', 'args', 'env', 'apiVersion', 'interactiveMode', 'provideClusterInfo']);
const authProvider = fc.record({ name: plain, config: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), secretScalar), secretLeaf) }, { requiredKeys: [] });
const named = (key: string, body: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(fc.array(fc.record({ name: plain, [key]: fc.oneof(body, plain) }), { maxLength: 3 }), plain);
const kubeconfigLike = fc.record(
  {
    clusters: named('cluster', field(clusterKeys)),
    users: named(
      'user',
      fc.tuple(field(userKeys), fc.option(exec), fc.option(authProvider)).map(([u, e, a]) => ({ ...u, ...(e ? { exec: e } : {}), ...(a ? { 'auth-provider': a } : {}) })),
    ),
    contexts: named('context', field(['cluster', 'user', 'namespace'])),
    'current-context': plain,
    kind: fc.oneof(fc.constant('Config'), plain),
  },
  { requiredKeys: [] },
);

// Well-typed documents with random combinations of settings, to exercise validation and RestConfig building.
// Mostly absent, so that many documents are valid and reach the RestConfig mapping.
const opt = <T,>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 });
const mostly = <T,>(good: T, ...bad: T[]): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: fc.constant(good), weight: 4 }, { arbitrary: fc.constantFrom(...bad), weight: 1 });
const b64 = (t: string): string => Buffer.from(t).toString('base64');
const wellTyped = fc
  .record({
    server: mostly('https://h:6443', '', 'h:1', 'http://h', 'not a url'),
    insecure: opt(fc.boolean()),
    caData: opt(mostly(b64('-----BEGIN CERTIFICATE-----\nQQ==\n-----END CERTIFICATE-----\n'), b64(SECRET))),
    proxy: opt(mostly('socks5://p:1', 'ftp://p', '::')),
    token: opt(fc.constant(SECRET)),
    username: opt(fc.constant('admin')),
    password: opt(fc.constant(SECRET)),
    keyData: opt(mostly(b64(`-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`), b64(SECRET))),
    certData: opt(fc.constant(b64('-----BEGIN CERTIFICATE-----\nQQ==\n-----END CERTIFICATE-----\n'))),
    as: opt(mostly('jane', '')),
    groups: opt(fc.array(fc.constantFrom('g1', 'g2'), { maxLength: 2 })),
    exec: opt(
      fc.record({
        command: mostly('plugin', ''),
        args: fc.constant([`--secret=${SECRET}`]),
        env: fc.constant([{ name: 'K', value: SECRET }]),
        apiVersion: mostly('client.authentication.k8s.io/v1beta1', 'client.authentication.k8s.io/v1', 'x/v1', ''),
        interactiveMode: opt(mostly('Never', 'IfAvailable', 'Always', 'Bogus')),
      }),
    ),
    provider: opt(fc.constant({ name: 'oidc', config: { 'id-token': SECRET } })),
    namespace: opt(mostly('ns', 'Bad_NS', '')),
    userName: mostly('u', 'missing'),
  })
  .map((r) => ({
    'current-context': 'ctx',
    clusters: [{ name: 'c', cluster: { server: r.server, 'insecure-skip-tls-verify': r.insecure, 'certificate-authority-data': r.caData, 'proxy-url': r.proxy } }],
    users: [
      {
        name: 'u',
        user: {
          token: r.token,
          username: r.username,
          password: r.password,
          'client-key-data': r.keyData,
          'client-certificate-data': r.certData,
          as: r.as,
          'as-groups': r.groups,
          exec: r.exec,
          'auth-provider': r.provider,
        },
      },
    ],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: r.userName, namespace: r.namespace } }],
  }));

test('property: any kubeconfig-shaped document parses or fails with a typed error that names fields and hides values', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(kubeconfigLike, wellTyped), async (doc) => {
      let config;
      try {
        config = parseKubeConfig(stringify(doc), { file: '/fuzz/config' });
      } catch (err) {
        assert.ok(typed(err), inspect(err));
        assert.ok(!(err as Error).message.includes(SECRET), (err as Error).message);
        return;
      }
      assert.ok(!inspect(config, { depth: Infinity }).includes(SECRET));
      // Building a RestConfig from it fails only with typed errors too.
      try {
        const rest = await restConfigFrom(config, { env: {} });
        assert.ok(!inspect(rest, { depth: Infinity }).includes(SECRET));
      } catch (err) {
        assert.ok(
          typed(err) || err instanceof UnsupportedAuthProviderError || err instanceof NoConfigurationError || err instanceof KubeConfigReadError,
          inspect(err),
        );
        assert.ok(!(err as Error).message.includes(SECRET), (err as Error).message);
      }
    }),
    { numRuns: 300 },
  );
});

test('property: arbitrary text never crashes the parser', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      try {
        parseKubeConfig(text, { file: '/fuzz/text' });
      } catch (err) {
        assert.ok(typed(err), inspect(err));
      }
    }),
    { numRuns: 300 },
  );
});
