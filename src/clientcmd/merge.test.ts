import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeKubeConfigs, parseKubeConfig } from './index.ts';

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
