import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod, Service } from '../../api/core/v1.ts';
import { desiredSlices, maxEndpointsPerSlice } from './endpointslice-controller.ts';

const svc: Service = { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };

function pod(name: string, ip: string, opts: { ready?: boolean; node?: string; deleting?: boolean; port?: number } = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' }, ...(opts.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { ...(opts.node === undefined ? {} : { nodeName: opts.node }), containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: opts.port ?? 8080 }] }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

test('desiredSlices: one endpoint per pod with an IP, conditions, node and zone, grouped by port set and address family, chunked by 100', () => {
  const nodes = new Map<string, Node>([['n1', { metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' } } }]]);
  const slices = desiredSlices(svc, [pod('b', '10.0.0.2', { node: 'n1' }), pod('a', '10.0.0.1', { ready: false }), pod('c', '10.0.0.3', { deleting: true }), pod('d', 'fd00::1'), pod('e', '10.0.0.5', { port: 9090 }), { ...pod('f', '') }], nodes);
  assert.deepEqual(
    slices.map((s) => [s.addressType, s.ports.map((p) => p.port), s.endpoints.map((e) => [e.addresses[0], e.conditions, e.nodeName, e.zone])]),
    [
      ['IPv4', [8080], [['10.0.0.1', { ready: false, serving: false, terminating: false }, undefined, undefined], ['10.0.0.2', { ready: true, serving: true, terminating: false }, 'n1', 'z1'], ['10.0.0.3', { ready: false, serving: true, terminating: true }, undefined, undefined]]],
      ['IPv6', [8080], [['fd00::1', { ready: true, serving: true, terminating: false }, undefined, undefined]]],
      ['IPv4', [9090], [['10.0.0.5', { ready: true, serving: true, terminating: false }, undefined, undefined]]],
    ],
  );
  assert.deepEqual(slices[0]?.endpoints[1]?.targetRef, { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' });
  const many = desiredSlices(svc, Array.from({ length: 250 }, (_, i) => pod(`p${i}`, `10.1.${Math.floor(i / 200)}.${i % 200}`)), new Map());
  assert.deepEqual(many.map((s) => s.endpoints.length), [maxEndpointsPerSlice, maxEndpointsPerSlice, 50]);
});
