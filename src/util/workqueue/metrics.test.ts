import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../clock/clock.ts';
import { DelayingQueue } from './delaying-queue.ts';
import { noopMetricsProvider, setGlobalMetricsProvider, type MetricsProvider } from './metrics.ts';
import { Queue } from './queue.ts';

describe('setGlobalMetricsProvider', () => {
  test('applies to queues created afterwards without a provider; only the first call counts (upstream SetProvider)', () => {
    const calls: string[] = [];
    const provider: MetricsProvider = {
      ...noopMetricsProvider,
      newAddsMetric: (name) => ({ inc: () => calls.push(`add ${name}`) }),
      newRetriesMetric: (name) => ({ inc: () => calls.push(`retry ${name}`) }),
    };
    const clock = new FakeClock();
    const before = new Queue<string>({ name: 'before', clock, metricsProvider: noopMetricsProvider });
    assert.equal(setGlobalMetricsProvider(provider), true);
    assert.equal(setGlobalMetricsProvider(noopMetricsProvider), false);
    const q = new DelayingQueue<string>({ name: 'global', clock });
    before.add('x');
    q.add('x');
    q.addAfter('y', 0);
    assert.deepEqual(calls, ['add global', 'retry global', 'add global']);
    q.shutDown();
  });
});
