import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../api/events/v1.ts';
import { EventNamespaceError, newEventSink, type EventsClient } from './event-sink.ts';

test('the sink sends each call to the client of the event namespace, patching with a strategic merge patch', async () => {
  const calls: unknown[][] = [];
  const client = (ns: string): EventsClient<Event> => ({
    create: async (e) => (calls.push([ns, 'create', e.metadata?.name]), e),
    update: async (e) => (calls.push([ns, 'update', e.metadata?.name]), e),
    patch: async (name, type, body) => (calls.push([ns, 'patch', name, type, body]), { eventTime: '' }),
  });
  const sink = newEventSink(client);
  const event: Event = { eventTime: '2024-01-01T00:00:00.000000Z', metadata: { name: 'e1', namespace: 'ns' } };
  await sink.create(event);
  await sink.update(event);
  await sink.patch(event, { series: { count: 2 } });
  assert.deepEqual(calls, [
    ['ns', 'create', 'e1'],
    ['ns', 'update', 'e1'],
    ['ns', 'patch', 'e1', 'application/strategic-merge-patch+json', { series: { count: 2 } }],
  ]);
  await assert.rejects(sink.create({ eventTime: '', metadata: { name: 'x' } }), (err: unknown) => err instanceof EventNamespaceError && err.message === "can't create an event with empty namespace");
});
