import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeList } from '../apimachinery/object.ts';
import { ResponseDecodeError } from '../rest/errors.ts';
import { completeListItems } from './resource-client.ts';

const podList = (): KubeList<Record<string, unknown>> => ({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '7' },
  items: [{ metadata: { name: 'a' } }, { kind: 'Pod', metadata: { name: 'b' } }, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'c' } }],
});

test('typed lists keep their items as the server sent them: no TypeMeta is invented', () => {
  assert.deepEqual(completeListItems(podList(), false).items, podList().items);
});

test("unstructured lists give items lacking both apiVersion and kind the list's, as UnstructuredList decoding does", () => {
  assert.deepEqual(
    completeListItems(podList(), true).items.map((i) => [i['apiVersion'], i['kind']]),
    [
      ['v1', 'Pod'],
      [undefined, 'Pod'],
      ['example.com/v1', 'Gadget'],
    ],
  );
  const odd: KubeList<Record<string, unknown>> = { kind: 'Things', apiVersion: 'x/v1', metadata: {}, items: [{}] };
  assert.deepEqual(completeListItems(odd, true).items, [{ kind: 'Things', apiVersion: 'x/v1' }]);
});

test('missing or null items are an empty list; items that are not an array are a decode error', () => {
  for (const items of [undefined, null]) assert.deepEqual(completeListItems({ kind: 'PodList', metadata: {}, items } as never, true).items, []);
  assert.throws(() => completeListItems({ kind: 'PodList', metadata: {}, items: {} } as never, false), ResponseDecodeError);
});
