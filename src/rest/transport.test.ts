/**
 * RestConfig.host as client-go reads it (rest/url_utils.go defaultServerUrlFor, DefaultServerURL).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, parseHost } from './transport.ts';

test('an empty host means localhost, over http unless the config has TLS settings (defaultServerUrlFor)', () => {
  assert.equal(parseHost({ host: '' }).toString(), 'http://localhost/');
  assert.equal(parseHost({ host: '', tls: { insecure: true } }).toString(), 'https://localhost/');
});

test('a host without a scheme may not carry a path; a URL may (DefaultServerURL)', () => {
  for (const host of ['example.com/prefix', '127.0.0.1:6443/api', 'localhost:8080/a/b']) {
    assert.throws(() => parseHost({ host }), (err: unknown) => err instanceof ConfigError && err.message === `host must be a URL or a host:port pair: ${JSON.stringify(host)}`, host);
  }
  assert.equal(parseHost({ host: 'example.com/' }).toString(), 'http://example.com/');
  assert.equal(parseHost({ host: '127.0.0.1:6443', tls: { caData: 'pem' } }).toString(), 'https://127.0.0.1:6443/');
  assert.equal(parseHost({ host: 'https://example.com/prefix' }).toString(), 'https://example.com/prefix');
});
