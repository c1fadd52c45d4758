import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilteringResourceEventHandler, ResourceEventHandlerFuncs, type ResourceEventHandler } from './event-handlers.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';

interface Obj {
  name: string;
  ok: boolean;
}
const o = (name: string, ok: boolean): Obj => ({ name, ok });

function recorder(log: string[]): ResourceEventHandler<Obj> {
  return {
    onAdd: (x, initial) => void log.push(`add ${x.name} ${String(initial)}`),
    onUpdate: (a, b) => void log.push(`update ${a.name}->${b.name}`),
    onDelete: (x) => void log.push(`delete ${x instanceof DeletedFinalStateUnknown ? x.key : x.name}`),
  };
}

test('FilteringResourceEventHandler: updates entering the filter become adds, leaving it become deletes', () => {
  const log: string[] = [];
  const h = new FilteringResourceEventHandler<Obj>({ filterFunc: (x) => (x instanceof DeletedFinalStateUnknown ? true : x.ok), handler: recorder(log) });
  const cases: [() => void, string[]][] = [
    [() => h.onAdd(o('a', true), true), ['add a true']],
    [() => h.onAdd(o('b', false), true), []],
    [() => h.onUpdate(o('old', true), o('new', true)), ['update old->new']],
    [() => h.onUpdate(o('old', false), o('new', true)), ['add new false']],
    [() => h.onUpdate(o('old', true), o('new', false)), ['delete old']],
    [() => h.onUpdate(o('old', false), o('new', false)), []],
    [() => h.onDelete(o('c', true)), ['delete c']],
    [() => h.onDelete(o('d', false)), []],
    [() => h.onDelete(new DeletedFinalStateUnknown<Obj>('ns/e', undefined)), ['delete ns/e']],
  ];
  for (const [call, expected] of cases) {
    log.length = 0;
    call();
    assert.deepEqual(log, expected);
  }
});

test('ResourceEventHandlerFuncs calls the functions given and ignores the missing ones', async () => {
  const log: string[] = [];
  const h = new ResourceEventHandlerFuncs<Obj>({ addFunc: (x) => void log.push(`add ${x.name}`), deleteFunc: async () => void log.push('delete') });
  void h.onAdd(o('a', true));
  void h.onUpdate(o('a', true), o('b', true));
  await h.onDelete(o('a', true));
  assert.deepEqual(log, ['add a', 'delete']);
});
