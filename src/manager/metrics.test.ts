import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { newRestClientMetrics, newRestClientRateLimiterMetrics, registerProcessMetrics } from './metrics.ts';

const newRegistry = (): Registry => new Registry();
const asRegistry = (r: Registry): PrometheusRegistry => r as unknown as PrometheusRegistry;

test("client-go's request size, response size and rate limiter histograms carry component-base's names, labels and buckets", async () => {
  const reg = newRegistry();
  const request = newRestClientMetrics(asRegistry(reg));
  const limiter = newRestClientRateLimiterMetrics(asRegistry(reg));
  request({ method: 'POST', code: '201', host: 'h:6443', seconds: 0.01, requestBytes: 300, responseBytes: 5000 });
  request({ method: 'GET', code: '200', host: 'h:6443', seconds: 0.01, requestBytes: 0, responseBytes: undefined });
  limiter({ verb: 'GET', host: 'h:6443', seconds: 0.2 });
  const text = await reg.metrics();
  const series = (name: string, verb: string): string[] => text.split('\n').filter((l) => l.startsWith(`${name}_bucket{`) && l.includes(`verb="${verb}"`));
  assert.deepEqual(
    series('rest_client_request_size_bytes', 'POST').map((l) => /le="([^"]+)"/.exec(l)![1]),
    ['64', '256', '512', '1024', '4096', '16384', '65536', '262144', '1048576', '4194304', '16777216', '+Inf'],
  );
  assert.ok(text.includes('rest_client_request_size_bytes_bucket{le="512",verb="POST",host="h:6443"} 1'));
  assert.ok(text.includes('rest_client_request_size_bytes_bucket{le="64",verb="GET",host="h:6443"} 1'));
  assert.ok(text.includes('rest_client_response_size_bytes_bucket{le="4096",verb="POST",host="h:6443"} 0'));
  assert.ok(text.includes('rest_client_response_size_bytes_bucket{le="16384",verb="POST",host="h:6443"} 1'));
  assert.ok(!text.includes('rest_client_response_size_bytes_count{verb="GET"'));
  assert.deepEqual(
    series('rest_client_rate_limiter_duration_seconds', 'GET').map((l) => /le="([^"]+)"/.exec(l)![1]),
    ['0.005', '0.025', '0.1', '0.25', '0.5', '1', '2', '4', '8', '15', '30', '60', '+Inf'],
  );
  assert.ok(text.includes('rest_client_rate_limiter_duration_seconds_bucket{le="0.25",verb="GET",host="h:6443"} 1'));
  assert.ok(text.includes('# HELP rest_client_rate_limiter_duration_seconds Client side rate limiter latency in seconds. Broken down by verb, and host.'));
});

test('registerProcessMetrics adds the process collector names once per registry', async () => {
  const reg = newRegistry();
  registerProcessMetrics(asRegistry(reg));
  registerProcessMetrics(asRegistry(reg));
  const text = await reg.metrics();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  assert.ok(value('process_resident_memory_bytes') > 0);
  assert.ok(value('process_cpu_seconds_total') >= 0);
  assert.ok(Math.abs(value('process_start_time_seconds') - Math.round(performance.timeOrigin / 1000)) <= 1);
  if (process.platform === 'linux') assert.ok(value('process_open_fds') > 0 && value('process_max_fds') > 0);
});
