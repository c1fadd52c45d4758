/**
 * Work queues on their own: the three queue types with their options, workers, rate limiters, and
 * driving time with a FakeClock. Needs no cluster: `node examples/workqueue.ts`.
 */
import type { ConfigMap } from 'kubeloom/api/core/v1';

const reconciled: string[] = [];
async function reconcile(key: string): Promise<void> {
  reconciled.push(key);
}

// #region workers
import { objectKey, type KubeObject } from 'kubeloom/apimachinery';
import { RateLimitingQueue, runWorkers } from 'kubeloom/util/workqueue';

const queue = new RateLimitingQueue<string>({ name: 'configmaps' });

// The informer's add, update and delete handlers only enqueue keys.
const enqueue = (obj: KubeObject): void => queue.add(objectKey(obj));

const controller = new AbortController();
const stopped = runWorkers(queue, { concurrency: 4, signal: controller.signal }, async (key) => {
  await reconcile(key); // throw to retry with backoff
});

process.once('SIGTERM', () => controller.abort());
// #endregion

const cm: ConfigMap = { metadata: { namespace: 'default', name: 'app' } };
enqueue(cm);
while (reconciled.length === 0) await new Promise((resolve) => setImmediate(resolve));
controller.abort();
// #region workers
await stopped; // every worker has exited and in-flight reconciles have finished
// #endregion
console.log(reconciled); // [ 'default/app' ]

// #region options
import { BucketRateLimiter, DelayingQueue, FifoStorage, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, noopMetricsProvider, Queue } from 'kubeloom/util/workqueue';
import { realClock } from 'kubeloom/util/clock';

const name = 'example';
const metricsProvider = noopMetricsProvider;
const clock = realClock;
const storage = new FifoStorage<string>();
const plain = new Queue<string>({ name, metricsProvider, clock, storage });
const delaying = new DelayingQueue<string>({ name, metricsProvider, clock, queue: plain });
const rateLimiter = new MaxOfRateLimiter<string>(
  new ItemExponentialFailureRateLimiter<string>(5, 1_000_000), // per item: 5 ms, doubling, up to 1000 s
  new BucketRateLimiter<string>(10, 100, { clock }), // overall: 10/s, bursts of 100
);
const rateLimited = new RateLimitingQueue<string>({ rateLimiter, name, metricsProvider, clock, delayingQueue: delaying });
// #endregion
rateLimited.shutDown();

// #region fake-clock
import { FakeClock } from 'kubeloom/util/clock';

const fakeClock = new FakeClock();
const timed = new RateLimitingQueue<string>({ clock: fakeClock });
timed.addRateLimited('a'); // the first failure waits 5 ms
await fakeClock.step(5); // 'a' is now queued
console.log(timed.len()); // 1
// #endregion
timed.shutDown();
