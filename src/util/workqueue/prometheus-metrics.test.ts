import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { FakeClock } from '../clock/clock.ts';
import { newPrometheusMetricsProvider } from './prometheus-metrics.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';

/** The sample lines of `metric` (with labels) from the text exposition. */
async function samples(registry: Registry, metric: string): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `));
}

describe('newPrometheusMetricsProvider', () => {
  test('exposes upstream metric names labelled with the queue name', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const provider = newPrometheusMetricsProvider(registry);
    const q = new RateLimitingQueue<string>({ name: 'pods', clock, metricsProvider: provider });
    q.add('a');
    q.add('b');
    q.add('a');
    await clock.step(2);
    const r = await q.get();
    q.addRateLimited('c');
    await clock.step(498);
    q.done(r.item!);

    // a, b, then c once its 5 ms backoff passed; the second a was a duplicate.
    assert.deepEqual(await samples(registry, 'workqueue_adds_total'), ['workqueue_adds_total{name="pods"} 3']);
    assert.deepEqual(await samples(registry, 'workqueue_depth'), ['workqueue_depth{name="pods"} 2']);
    assert.deepEqual(await samples(registry, 'workqueue_retries_total'), ['workqueue_retries_total{name="pods"} 1']);
    assert.deepEqual(await samples(registry, 'workqueue_unfinished_work_seconds'), ['workqueue_unfinished_work_seconds{name="pods"} 0.498']);
    assert.deepEqual(await samples(registry, 'workqueue_longest_running_processor_seconds'), [
      'workqueue_longest_running_processor_seconds{name="pods"} 0.498',
    ]);
    const latency = await samples(registry, 'workqueue_queue_duration_seconds_bucket');
    assert.deepEqual(latency, [
      'workqueue_queue_duration_seconds_bucket{le="1e-8",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="1e-7",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="0.000001",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="0.00001",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="0.0001",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="0.001",name="pods"} 0',
      'workqueue_queue_duration_seconds_bucket{le="0.01",name="pods"} 1',
      'workqueue_queue_duration_seconds_bucket{le="0.1",name="pods"} 1',
      'workqueue_queue_duration_seconds_bucket{le="1",name="pods"} 1',
      'workqueue_queue_duration_seconds_bucket{le="10",name="pods"} 1',
      'workqueue_queue_duration_seconds_bucket{le="+Inf",name="pods"} 1',
    ]);
    assert.deepEqual(await samples(registry, 'workqueue_work_duration_seconds_sum'), ['workqueue_work_duration_seconds_sum{name="pods"} 0.498']);
    q.shutDown();
  });

  test('several queues and providers share one set of metrics per registry', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const a = new RateLimitingQueue<string>({ name: 'a', clock, metricsProvider: newPrometheusMetricsProvider(registry) });
    const b = new RateLimitingQueue<string>({ name: 'b', clock, metricsProvider: newPrometheusMetricsProvider(registry) });
    a.add('x');
    b.add('x');
    b.add('y');
    assert.deepEqual(await samples(registry, 'workqueue_adds_total'), ['workqueue_adds_total{name="a"} 1', 'workqueue_adds_total{name="b"} 2']);
    a.shutDown();
    b.shutDown();
  });
});
