import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeKubeConfigs, newKubeConfig, parseKubeConfig } from './index.ts';

test('mergeKubeConfigs: first definition of each name wins, whole entries, no field-level mixing', () => {
  const first = parseKubeConfig('clusters:\n- name: a\n  cluster: {server: https://first}\n', { file: '/1' });
  const second = parseKubeConfig(
    'current-context: ctx\npreferences: {colors: true}\nclusters:\n- name: a\n  cluster: {server: https://second, tls-server-name: x}\n- name: b\n  cluster: {server: https://b}\n',
    { file: '/2' },
  );
  const merged = mergeKubeConfigs([first, second]);
  assert.deepEqual(
    Object.entries(merged.clusters).map(([name, c]) => [name, c.server, c.tlsServerName, c.locationOfOrigin]),
    [
      ['a', 'https://first', undefined, '/1'],
      ['b', 'https://b', undefined, '/2'],
    ],
  );
  assert.equal(merged.currentContext, 'ctx');
  assert.equal(merged.preferences.colors, true);
  assert.deepEqual(mergeKubeConfigs([second, first]).clusters['a']!.server, 'https://second');
  assert.deepEqual(Object.keys(mergeKubeConfigs([]).clusters), []);
});

test('mergeKubeConfigs: extensions merge per name, first wins', () => {
  const a = parseKubeConfig('extensions:\n- {name: x, extension: 1}\n');
  const b = parseKubeConfig('extensions:\n- {name: x, extension: 2}\n- {name: y, extension: 3}\n');
  assert.deepEqual(mergeKubeConfigs([a, b]).extensions, { x: 1, y: 3 });
});

test('property: for every name, the merged entry is the one of the first config defining it', () => {
  const names = fc.constantFrom('a', 'b', 'c', 'd');
  const configArb = fc.record({
    clusters: fc.uniqueArray(names, { maxLength: 4 }),
    contexts: fc.uniqueArray(names, { maxLength: 4 }),
    current: fc.option(names, { nil: undefined }),
  });
  fc.assert(
    fc.property(fc.array(configArb, { maxLength: 5 }), (specs) => {
      const configs = specs.map((spec, i) => {
        const config = newKubeConfig();
        for (const n of spec.clusters) config.clusters[n] = { server: `https://${n}-${i}` };
        for (const n of spec.contexts) config.contexts[n] = { cluster: n, authInfo: `u${i}` };
        config.currentContext = spec.current ?? '';
        return config;
      });
      const merged = mergeKubeConfigs(configs);
      for (const n of ['a', 'b', 'c', 'd'] as const) {
        const firstCluster = specs.findIndex((s) => s.clusters.includes(n));
        assert.equal(merged.clusters[n]?.server, firstCluster < 0 ? undefined : `https://${n}-${firstCluster}`);
        const firstContext = specs.findIndex((s) => s.contexts.includes(n));
        assert.equal(merged.contexts[n]?.authInfo, firstContext < 0 ? undefined : `u${firstContext}`);
      }
      assert.equal(merged.currentContext, specs.find((s) => s.current !== undefined)?.current ?? '');
    }),
  );
});
