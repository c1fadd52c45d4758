import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/clock.ts';
import { cellText, isTable, TablePrinter, type Table } from './table-printer.ts';

const clock = new FakeClock(Date.parse('2024-01-01T01:00:00Z'));
const columns = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Ready', type: 'string', priority: 0 },
  { name: 'Node', type: 'string', priority: 1 },
];
const table = (rows: Table['rows'], withColumns = true): Table => ({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', columnDefinitions: withColumns ? columns : null, rows });

test('a server Table prints upper-cased priority-0 columns; -o wide adds the others; -A prepends NAMESPACE from the row object', () => {
  const rows = [{ cells: ['web-1', '1/1', 'node-a'], object: { metadata: { name: 'web-1', namespace: 'prod' } } }];
  assert.equal(new TablePrinter({ wide: false, withNamespace: false, pods: true, clock }).table(table(rows)), 'NAME    READY\nweb-1   1/1\n');
  assert.equal(new TablePrinter({ wide: true, withNamespace: false, pods: true, clock }).table(table(rows)), 'NAME    READY   NODE\nweb-1   1/1     node-a\n');
  assert.equal(new TablePrinter({ wide: false, withNamespace: true, pods: true, clock }).table(table(rows)), 'NAMESPACE   NAME    READY\nprod        web-1   1/1\n');
});

test('the header prints once: later Tables without column definitions (watch events) reuse the first columns and widths', () => {
  const printer = new TablePrinter({ wide: false, withNamespace: false, pods: false, clock });
  assert.equal(printer.table(table([])), '');
  assert.equal(printer.table(table([{ cells: ['a', 'yes', 'n'] }])), 'NAME   READY\na      yes\n');
  assert.equal(printer.table(table([{ cells: ['b', 'no', 'n'] }], false)), 'b      no\n');
  // New column definitions print a new header.
  const other = { kind: 'Table' as const, apiVersion: 'meta.k8s.io/v1', columnDefinitions: [{ name: 'Name', type: 'string' }], rows: [{ cells: ['c'] }] };
  assert.equal(printer.table(other), 'NAME\nc\n');
});

test('cells print as kubectl does: strings cut at a newline with "...", numbers and booleans as text, null as nothing', () => {
  assert.deepEqual(['one\ntwo', 3, 1.5, true, null, undefined, { a: 1 }].map(cellText), ['one...', '3', '1.5', 'true', '', '', '{"a":1}']);
});

test('objects from a server without Table support print NAME and AGE, plus kubectl pod columns for pods', () => {
  const created = '2024-01-01T00:00:00Z';
  const printer = new TablePrinter({ wide: true, withNamespace: true, pods: true, clock });
  const pod = {
    metadata: { name: 'web-1', namespace: 'prod', creationTimestamp: created },
    spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'node-a' },
    status: { phase: 'Running', podIP: '10.0.0.1', containerStatuses: [{ name: 'a', ready: true, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
  };
  assert.equal(
    printer.objects([pod]),
    'NAMESPACE   NAME    READY   STATUS             RESTARTS   AGE   IP         NODE\nprod        web-1   1/2     CrashLoopBackOff   2          60m   10.0.0.1   node-a\n',
  );
  const plain = new TablePrinter({ wide: false, withNamespace: false, pods: false, clock });
  assert.equal(plain.objects([{ metadata: { name: 'cfg', creationTimestamp: created } }, { metadata: { name: 'x' } }]), 'NAME   AGE\ncfg    60m\nx      <unknown>\n');
});

test('isTable recognises meta.k8s.io Tables only', () => {
  assert.equal(isTable({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' }), true);
  assert.equal(isTable({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' }), true);
  assert.equal(isTable({ kind: 'Table', apiVersion: 'example.com/v1' }), false);
  assert.equal(isTable({ kind: 'PodList', apiVersion: 'v1', items: [] }), false);
  assert.equal(isTable(null), false);
});
