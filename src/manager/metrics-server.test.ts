import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateServingCertificates } from '../webhook/certificates.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { metricsServingKeyPair } from './metrics-server.ts';

test('metricsServingKeyPair serves certDir’s tls.crt/tls.key when both exist, else a self-signed pair for localhost', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-metrics-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new FakeClock();
  const selfSigned = await metricsServingKeyPair({ certDir: dir }, clock);
  const leaf = new X509Certificate(selfSigned.cert);
  assert.equal(leaf.subject, 'CN=localhost');
  assert.equal(leaf.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  // Valid from a minute before the (fake) clock's now.
  assert.equal(new Date(leaf.validFrom).getTime(), clock.now() - 60_000);

  const written = await generateServingCertificates({ certDir: dir, hosts: ['metrics.example'], clock });
  assert.deepEqual(await metricsServingKeyPair({ certDir: dir }, clock), { cert: written.cert, key: written.key });
});
