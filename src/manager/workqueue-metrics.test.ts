import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { PriorityQueue } from '../util/workqueue/priority-queue.ts';
import { RateLimitingQueue } from '../util/workqueue/rate-limiting-queue.ts';
import { newControllerRuntimeWorkqueueMetrics } from './workqueue-metrics.ts';

async function series(registry: Registry, name: string): Promise<string[]> {
  return (await registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#') && l !== '');
}

test("controller-runtime's workqueue metrics: name and controller labels, the priority queue's depth by priority (moving when an item's priority rises)", async () => {
  const registry = new Registry();
  const provider = newControllerRuntimeWorkqueueMetrics(registry as unknown as PrometheusRegistry);
  const clock = new FakeClock();
  const q = new PriorityQueue<string>({ name: 'web', clock, metricsProvider: provider });
  q.addWithOpts({ priority: -100 }, 'a');
  q.addWithOpts({ priority: -100 }, 'b');
  q.addWithOpts({ priority: 0 }, 'c');
  assert.deepEqual(await series(registry, 'workqueue_depth'), ['workqueue_depth{name="web",controller="web",priority="-100"} 2', 'workqueue_depth{name="web",controller="web",priority="0"} 1']);
  // b is wanted sooner: its depth moves from -100 to 10.
  q.addWithOpts({ priority: 10 }, 'b');
  assert.deepEqual(await series(registry, 'workqueue_depth'), [
    'workqueue_depth{name="web",controller="web",priority="-100"} 1',
    'workqueue_depth{name="web",controller="web",priority="0"} 1',
    'workqueue_depth{name="web",controller="web",priority="10"} 1',
  ]);
  const first = await q.getWithPriority();
  assert.deepEqual([first.item, first.priority], ['b', 10]);
  assert.match((await series(registry, 'workqueue_depth')).join('\n'), /priority="10"\} 0/);
  assert.deepEqual(await series(registry, 'workqueue_adds_total'), ['workqueue_adds_total{name="web",controller="web"} 3']);
  const buckets = (await series(registry, 'workqueue_queue_duration_seconds')).filter((l) => l.includes('_bucket'));
  assert.equal(buckets.length, 13); // 12 buckets and +Inf
  assert.match(buckets[0]!, /^workqueue_queue_duration_seconds_bucket\{le="1e-8",name="web",controller="web"\} 1$/);
  // A queue without priorities reports priority="".
  const plain = new RateLimitingQueue<string>({ name: 'plain', clock, metricsProvider: provider });
  plain.add('x');
  assert.ok((await series(registry, 'workqueue_depth')).includes('workqueue_depth{name="plain",controller="plain",priority=""} 1'));
  q.shutDown();
  plain.shutDown();
});
