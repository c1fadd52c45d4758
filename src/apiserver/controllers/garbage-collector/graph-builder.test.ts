import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OwnerReference } from '../../../api/meta/v1.ts';
import type { GraphNode } from './graph.ts';
import { GraphBuilder, type GraphEvent } from './graph-builder.ts';

/** A builder whose queues are arrays, so a test reads what it asked the collector to do. */
function builder(): { graph: GraphBuilder; deletes: string[]; orphans: string[]; changes: GraphEvent[]; invalid: string[] } {
  const out = { deletes: [] as string[], orphans: [] as string[], changes: [] as GraphEvent[], invalid: [] as string[] };
  const graph = new GraphBuilder({
    attemptToDelete: (n: GraphNode) => out.deletes.push(n.identity.name),
    attemptToDeleteRateLimited: (n: GraphNode) => out.deletes.push(`${n.identity.name} (later)`),
    attemptToOrphan: (n: GraphNode) => out.orphans.push(n.identity.name),
    graphChange: (e) => out.changes.push(e),
    reportInvalidNamespaceOwnerRef: (dep: GraphNode, ref: OwnerReference) => out.invalid.push(`${dep.identity.name} -> ${ref.name}`),
  });
  return { graph, ...out };
}

const cm = (name: string, uid: string, extra: Record<string, unknown> = {}, namespace = 'default'): Record<string, unknown> => ({ metadata: { name, uid, namespace, ...extra } });
const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...extra });
const add = (obj: Record<string, unknown>): GraphEvent => ({ type: 'add', obj, apiVersion: 'v1', kind: 'ConfigMap' });

test('an owner reference to an unseen object makes a virtual node the collector must verify', () => {
  const b = builder();
  b.graph.process(add(cm('child', 'c', { ownerReferences: [ref('owner', 'o')] })));
  const owner = b.graph.uidToNode.get('o')!;
  assert.equal(owner.isObserved(), false);
  assert.deepEqual(owner.identity, { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o', namespace: 'default' });
  assert.deepEqual(b.deletes, ['owner']);
  // The owner shows up: the node becomes observed and nothing more is queued.
  b.graph.process(add(cm('owner', 'o')));
  assert.equal(owner.isObserved(), true);
  assert.deepEqual(b.deletes, ['owner']);
});

test('deleting an owner queues its dependents; a dependent deleted queues an owner waiting for it in the foreground', () => {
  const b = builder();
  b.graph.process(add(cm('owner', 'o')));
  b.graph.process(add(cm('a', 'a', { ownerReferences: [ref('owner', 'o', { blockOwnerDeletion: true })] })));
  b.graph.process(add(cm('b', 'b', { ownerReferences: [ref('owner', 'o')] })));
  const marked = cm('owner', 'o', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] });
  b.graph.process({ type: 'update', obj: marked, oldObj: cm('owner', 'o'), apiVersion: 'v1', kind: 'ConfigMap' });
  assert.equal(b.graph.uidToNode.get('o')!.deletingDependents, true);
  assert.deepEqual(b.deletes.sort(), ['a', 'b', 'owner']);
  b.deletes.length = 0;
  b.graph.process({ type: 'delete', obj: cm('a', 'a', { ownerReferences: [ref('owner', 'o', { blockOwnerDeletion: true })] }), apiVersion: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(b.deletes, ['owner']);
  assert.equal(b.graph.uidToNode.has('a'), false);
});

test('the orphan finalizer arriving with the deletion queues the owner for orphaning, once', () => {
  const b = builder();
  b.graph.process(add(cm('owner', 'o')));
  const marked = cm('owner', 'o', { deletionTimestamp: 't', finalizers: ['orphan'] });
  b.graph.process({ type: 'update', obj: marked, oldObj: cm('owner', 'o'), apiVersion: 'v1', kind: 'ConfigMap' });
  b.graph.process({ type: 'update', obj: marked, oldObj: marked, apiVersion: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(b.orphans, ['owner']);
});

test('a blocking reference removed or made non-blocking releases its owner', () => {
  const b = builder();
  b.graph.process(add(cm('o1', 'o1')));
  b.graph.process(add(cm('o2', 'o2')));
  const before = cm('dep', 'd', { ownerReferences: [ref('o1', 'o1', { blockOwnerDeletion: true }), ref('o2', 'o2', { blockOwnerDeletion: true })] });
  b.graph.process(add(before));
  const after = cm('dep', 'd', { ownerReferences: [ref('o2', 'o2', { blockOwnerDeletion: false })] });
  b.graph.process({ type: 'update', obj: after, oldObj: before, apiVersion: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(b.deletes.sort(), ['o1', 'o2']);
  assert.equal(b.graph.uidToNode.get('o1')!.dependents.size, 0);
});

test('an observed owner in another namespace makes the reference suspect: reported, and the dependent checked', () => {
  const b = builder();
  b.graph.process(add(cm('owner', 'o', {}, 'other')));
  b.graph.process(add(cm('dep', 'd', { ownerReferences: [ref('owner', 'o')] })));
  assert.deepEqual(b.invalid, ['dep -> owner']);
  assert.deepEqual(b.deletes, ['dep']);
});

test('a virtual delete for coordinates some dependents do not use keeps the node and re-checks only the matching ones', () => {
  const b = builder();
  b.graph.process(add(cm('x', 'x', { ownerReferences: [ref('owner', 'o')] })));
  b.graph.process(add(cm('y', 'y', { ownerReferences: [ref('owner', 'o', { kind: 'Secret' })] })));
  b.deletes.length = 0;
  b.graph.process({ type: 'delete', virtual: true, obj: cm('owner', 'o'), apiVersion: 'v1', kind: 'ConfigMap' });
  // x named the absent identity; the node now carries y's identity, to be verified next.
  assert.deepEqual(b.deletes, ['x', 'owner (later)']);
  assert.equal(b.graph.uidToNode.get('o')!.identity.kind, 'Secret');
});
