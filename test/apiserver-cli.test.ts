import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Json } from './apiserver-helpers.ts';

const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');

test('kubeloom apiserver prints its URL once ready, writes a kubeconfig and stops cleanly on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(process.execPath, [main, 'apiserver', '--port', '0', '--token', 'cli-token', '--write-kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const kc: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    assert.equal(kc.clusters[0].cluster.server, url);
    assert.equal(kc.users[0].user.token, 'cli-token');
    const denied = await fetch(`${url}/api/v1/namespaces`);
    assert.equal(denied.status, 401);
    await denied.arrayBuffer();
    const res = await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: 'Bearer cli-token' } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Json).kind, 'NamespaceList');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
    assert.match(out, /SIGTERM, stopping\n$/);
  } finally {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubeloom apiserver rejects bad flags with exit code 2', async () => {
  for (const args of [['--port', 'http'], ['--bogus'], ['--compaction-interval', '10'], ['--compaction-interval', '0s']]) {
    const child = spawn(process.execPath, [main, 'apiserver', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (err += c));
    const [code] = await once(child, 'exit');
    assert.equal(code, 2, args.join(' '));
    assert.match(err, /kubeloom apiserver: /);
  }
});

test('kubeloom apiserver --rbac authorizes with RBAC: the kubeconfig is admin, anonymous requests get 403', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(process.execPath, [main, 'apiserver', '--port', '0', '--rbac', '--write-kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const kc: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    const token: string = kc.users[0].user.token;
    assert.match(token, /^[0-9a-f]{48}$/);
    const anon = await fetch(`${url}/api/v1/namespaces`);
    assert.equal(anon.status, 403);
    assert.equal(((await anon.json()) as Json).message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    const res = await fetch(`${url}/api/v1/namespaces`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    assert.equal((await exited)[0], 0);
  } finally {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
