import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { RestClient } from './client.ts';
import { NetworkError } from './errors.ts';
import { buildGet } from './request.ts';
import type { Credentials } from './config.ts';

async function pem(cn: string, usage: 'server' | 'client'): Promise<{ key: string; cert: string }> {
  const p = await generate([{ name: 'commonName', value: cn }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: usage === 'server', clientAuth: usage === 'client' },
      ...(usage === 'server' ? [{ name: 'subjectAltName' as const, altNames: [{ type: 7 as const, ip: '127.0.0.1' }, { type: 2 as const, value: 'api.internal' }] }] : []),
    ],
  });
  return { key: p.private, cert: p.cert };
}

test('client certificates from the config or a credential provider are presented; a rotated certificate gets a new pool', async () => {
  const [server, alice, bob] = await Promise.all([pem('server', 'server'), pem('alice', 'client'), pem('bob', 'client')]);
  const srv = https.createServer({ key: server.key, cert: server.cert, requestCert: true, rejectUnauthorized: true, ca: [alice.cert, bob.cert] }, (req, res) => {
    const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ metadata: { name: String(cn) } }));
  });
  let connections = 0;
  srv.on('secureConnection', () => connections++);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const host = `https://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const get = buildGet({ group: '', version: 'v1', resource: 'nodes', name: 'n' });
  const name = async (c: RestClient): Promise<string | undefined> => (await c.json<{ metadata: { name: string } }>(get)).metadata.name;
  try {
    const fromConfig = new RestClient({ host, qps: -1, tls: { caData: server.cert, certData: alice.cert, keyData: alice.key } });
    assert.equal(await name(fromConfig), 'alice');
    await fromConfig.close();

    let creds: Credentials = { clientCertificateData: alice.cert, clientKeyData: alice.key };
    const rotating = new RestClient({ host, qps: -1, tls: { caData: server.cert }, credentialProvider: { getCredentials: async () => creds, invalidate: () => undefined } });
    connections = 0;
    assert.deepEqual([await name(rotating), await name(rotating)], ['alice', 'alice']);
    creds = { clientCertificateData: bob.cert, clientKeyData: bob.key };
    assert.equal(await name(rotating), 'bob');
    assert.ok(connections <= 3, `${connections} connections`);
    await rotating.close();

    const byName = new RestClient({ host, qps: -1, tls: { caData: server.cert, serverName: 'api.internal', certData: bob.cert, keyData: bob.key } });
    assert.equal(await name(byName), 'bob');
    await byName.close();

    const noCert = new RestClient({ host, qps: -1, tls: { caData: server.cert } });
    await assert.rejects(noCert.json(get), NetworkError);
    await noCert.close();
    assert.throws(() => new RestClient({ host, tls: { certData: alice.cert } }), /must be set together/);
  } finally {
    srv.closeAllConnections();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});

test('allowH2 multiplexes requests over one HTTP/2 connection when the server offers it', async () => {
  const server = await pem('server', 'server');
  const srv = http2.createSecureServer({ key: server.key, cert: server.cert, allowHTTP1: true }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ metadata: { name: req.httpVersion } }));
  });
  let connections = 0;
  srv.on('secureConnection', () => connections++);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const host = `https://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const get = buildGet({ group: '', version: 'v1', resource: 'nodes', name: 'n' });
  try {
    const h2 = new RestClient({ host, qps: -1, tls: { caData: server.cert } }, { allowH2: true });
    const versions = await Promise.all(Array.from({ length: 20 }, async () => (await h2.json<{ metadata: { name: string } }>(get)).metadata.name));
    assert.deepEqual(new Set(versions), new Set(['2.0']));
    assert.equal(connections, 1);
    await h2.close();
    const h1 = new RestClient({ host, qps: -1, tls: { caData: server.cert } });
    assert.equal((await h1.json<{ metadata: { name: string } }>(get)).metadata.name, '1.1');
    await h1.close();
  } finally {
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
