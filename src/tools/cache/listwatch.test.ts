import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ListOptions } from '../../apimachinery/options.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { Watch } from '../../apimachinery/watch.ts';
import { ListWatch, newListWatchFromClient } from './listwatch.ts';

test('newListWatchFromClient applies selectors, then tweakListOptions, to copies of every call', async () => {
  const calls: [string, ListOptions][] = [];
  const client = {
    list: async (o: ListOptions): Promise<KubeList<unknown>> => {
      calls.push(['list', o]);
      return { items: [] };
    },
    watch: async (o: ListOptions): Promise<Watch<unknown>> => {
      calls.push(['watch', o]);
      return (async function* () {})();
    },
  };
  const lw = newListWatchFromClient(client, { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=web', tweakListOptions: (o) => (o.limit = 7) });
  const original: ListOptions = { resourceVersion: '0' };
  await lw.list(original);
  await lw.watch({ resourceVersion: '5', allowWatchBookmarks: true });
  assert.deepEqual(original, { resourceVersion: '0' });
  assert.deepEqual(calls, [
    ['list', { resourceVersion: '0', fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=web', limit: 7 }],
    ['watch', { resourceVersion: '5', allowWatchBookmarks: true, fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=web', limit: 7 }],
  ]);
  assert.equal(lw.isWatchListSemanticsUnsupported(), false);
});

test('ListWatch wraps two functions and can declare watch-list unsupported', async () => {
  const lw = new ListWatch<unknown>({ list: async () => ({ items: [1] }), watch: async () => (async function* () {})(), watchListSemanticsUnsupported: true });
  assert.deepEqual(await lw.list({}), { items: [1] });
  assert.equal(lw.isWatchListSemanticsUnsupported(), true);
});
