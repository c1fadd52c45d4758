import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import { ListPager, PageBufferSizeError, type ListPageStreamFunc } from './list-pager.ts';

type Item = { n: number };

/** A fake paged collection of `total` items; `expireOn` makes that continue token fail with 410 Expired. */
function pages(total: number, expireOn?: string): { calls: ListOptions[]; fn: (o: ListOptions) => Promise<KubeList<Item>> } {
  const calls: ListOptions[] = [];
  const fn = async (o: ListOptions): Promise<KubeList<Item>> => {
    calls.push({ ...o });
    if (o.continue !== undefined && o.continue === expireOn) throw new StatusError(newStatus(410, 'Expired', 'continue token expired'));
    const start = o.continue === undefined ? 0 : Number(o.continue);
    const end = o.limit !== undefined && o.limit > 0 ? Math.min(total, start + o.limit) : total;
    const items = Array.from({ length: end - start }, (_, i) => ({ n: start + i }));
    return { metadata: { resourceVersion: '42', ...(end < total ? { continue: String(end) } : {}) }, items };
  };
  return { calls, fn };
}

test('pages of 500 by default; resourceVersion is only sent with the first page', async () => {
  const { calls, fn } = pages(1200);
  const list = await new ListPager(fn).list({ resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', labelSelector: 'a=b' });
  assert.equal(list.items.length, 1200);
  assert.equal(list.paginated, true);
  assert.equal(list.metadata?.continue, undefined);
  assert.deepEqual(calls, [
    { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', labelSelector: 'a=b', limit: 500 },
    { labelSelector: 'a=b', limit: 500, continue: '500' },
    { labelSelector: 'a=b', limit: 500, continue: '1000' },
  ]);
});

test('list falls back to one full list when a continue token expired; an error on the first page is returned', async () => {
  const { calls, fn } = pages(7, '6');
  const list = await new ListPager(fn, { pageSize: 3 }).list();
  assert.deepEqual(calls, [{ limit: 3 }, { limit: 3, continue: '3' }, { limit: 3, continue: '6' }, {}]);
  assert.deepEqual(list.items.map((i) => i.n), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(list.paginated, true);
  const each = pages(7, '6');
  const seen: number[] = [];
  await assert.rejects(new ListPager(each.fn, { pageSize: 3 }).eachListItem({}, (i) => void seen.push(i.n)), (e) => e instanceof StatusError);
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
  const first = pages(7, '6');
  await assert.rejects(new ListPager(first.fn, { pageSize: 3, fullListIfExpired: false }).list(), (e) => e instanceof StatusError);
  const failing = new ListPager<Item>(async () => {
    throw new StatusError(newStatus(410, 'Expired', 'x'));
  });
  await assert.rejects(failing.list(), (e) => e instanceof StatusError);
});

test('a page visitor can stop early', async () => {
  const { calls, fn } = pages(10);
  await new ListPager(fn, { pageSize: 2 }).eachPage({}, () => false);
  assert.equal(calls.length, 1);
});

test('the full-list fallback keeps the requested resourceVersion and resourceVersionMatch; a paged list reports the first page resourceVersion', async () => {
  const calls: ListOptions[] = [];
  let page = 0;
  const fn = async (o: ListOptions): Promise<KubeList<Item>> => {
    calls.push({ ...o });
    page++;
    if (o.continue === 'expired') throw new StatusError(newStatus(410, 'Expired', 'The provided continue parameter is too old'));
    if (o.limit === undefined) return { metadata: { resourceVersion: '99' }, items: [{ n: 0 }, { n: 1 }] };
    return { metadata: { resourceVersion: String(10 + page), continue: page === 1 ? 'next' : page === 2 && o.labelSelector === 'expire' ? 'expired' : '' }, items: [{ n: page }] };
  };
  const fallback = await new ListPager(fn, { pageSize: 1 }).list({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan', labelSelector: 'expire' });
  assert.deepEqual(calls.at(-1), { resourceVersion: '5', resourceVersionMatch: 'NotOlderThan', labelSelector: 'expire' });
  assert.equal(fallback.metadata?.resourceVersion, '99');
  calls.length = 0;
  page = 0;
  const paged = await new ListPager(fn, { pageSize: 1 }).list({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' });
  assert.deepEqual(paged.items.map((i) => i.n), [1, 2]);
  assert.equal(paged.metadata?.resourceVersion, '11', 'the first page pins the snapshot');
});

/** The fake collection of {@link pages} streamed two items per batch, recording the batches. */
function streamed(total: number, expireOn?: string): { calls: ListOptions[]; batches: number[][]; fn: ListPageStreamFunc<Item> } {
  const paged = pages(total, expireOn);
  const batches: number[][] = [];
  const fn: ListPageStreamFunc<Item> = async (o, onItems) => {
    const page = await paged.fn(o);
    for (let i = 0; i < page.items.length; i += 2) {
      const batch = page.items.slice(i, i + 2);
      batches.push(batch.map((x) => x.n));
      await onItems(batch);
    }
    return page;
  };
  return { calls: paged.calls, batches, fn };
}

test('with a streaming page function, eachListItem visits items batch by batch across pages, in order', async () => {
  const s = streamed(5);
  const unused = pages(5);
  const seen: number[] = [];
  await new ListPager(unused.fn, { pageSize: 3, streamPageFn: s.fn }).eachListItem({ resourceVersion: '0' }, async (i) => {
    seen.push(i.n);
  });
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  assert.deepEqual(s.batches, [[0, 1], [2], [3, 4]]);
  assert.deepEqual(s.calls, [{ resourceVersion: '0', limit: 3 }, { limit: 3, continue: '3' }]);
  assert.equal(unused.calls.length, 0);
});

test('items() yields every item of every page; breaking out requests no further page', async () => {
  const s = streamed(10);
  const pager = new ListPager(pages(10).fn, { pageSize: 4, streamPageFn: s.fn });
  const all: number[] = [];
  for await (const i of pager.items()) all.push(i.n);
  assert.deepEqual(all, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const t = streamed(10);
  const early: number[] = [];
  for await (const i of new ListPager(pages(10).fn, { pageSize: 4, streamPageFn: t.fn }).items()) {
    early.push(i.n);
    if (i.n === 2) break;
  }
  assert.deepEqual(early, [0, 1, 2]);
  await new Promise((r) => setImmediate(r));
  assert.equal(t.calls.length, 1);
});

test('items() without a streaming function takes whole pages; an expired token fails the iteration after the items before it', async () => {
  const { fn } = pages(7, '6');
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const i of new ListPager(fn, { pageSize: 3 }).items()) seen.push(i.n);
  }, (e) => e instanceof StatusError);
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
});

/** Lets pending promise callbacks and I/O callbacks run. */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

test('eachListItem fetches at most pageBufferSize pages ahead of fn (pager.go eachListChunkBuffered), 10 by default; 0 fetches none ahead', async () => {
  for (const [bufferSize, fetchedWhileBlocked] of [[2, 4], [0, 1], [undefined, 12]] as const) {
    const { calls, fn } = pages(100);
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const pager = new ListPager(fn, { pageSize: 5, ...(bufferSize !== undefined ? { pageBufferSize: bufferSize } : {}) });
    const done = pager.eachListItem({}, async (item) => {
      seen.push(item.n);
      if (item.n === 0) await blocked;
    });
    while (calls.length < fetchedWhileBlocked) await settle(1);
    await settle();
    // One page being visited, `bufferSize` buffered, one more fetched and waiting for room.
    assert.equal(calls.length, fetchedWhileBlocked, `pageBufferSize ${String(bufferSize)}`);
    release();
    await done;
    assert.deepEqual(seen, Array.from({ length: 100 }, (_, i) => i));
    assert.equal(calls.length, 20);
  }
});

test('eachListItem: a negative pageBufferSize is refused; a failed page comes after the buffered ones were visited; a throwing fn stops the fetching', async () => {
  await assert.rejects(new ListPager(pages(3).fn, { pageBufferSize: -1 }).eachListItem({}, () => undefined), (err) => err instanceof PageBufferSizeError && err.message === 'ListPager.PageBufferSize must be >= 0, got -1');

  const failing = pages(9, '6');
  const seen: number[] = [];
  await assert.rejects(
    new ListPager(failing.fn, { pageSize: 3 }).eachListItem({}, (item) => void seen.push(item.n)),
    (err) => err instanceof StatusError && err.status.code === 410,
  );
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);

  const thrown = pages(100);
  const boom = new Error('boom');
  await assert.rejects(
    new ListPager(thrown.fn, { pageSize: 5, pageBufferSize: 1 }).eachListItem({}, (item) => {
      if (item.n === 7) throw boom;
    }),
    boom,
  );
  await settle();
  assert.ok(thrown.calls.length <= 4, `fetched ${thrown.calls.length} pages`);
});
