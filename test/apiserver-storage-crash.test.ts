// Crash safety of `kubeloom apiserver --data-dir`: every write acknowledged to a client survives kill -9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDataDirServer } from './support/data-dir-server.ts';

const cms = '/api/v1/namespaces/default/configmaps';


async function kill9(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

test('kubeloom apiserver --data-dir: acknowledged writes survive kill -9; resourceVersions stay monotonic; old watches get 410', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-crash-'));
  let child: ChildProcess | undefined;
  try {
    const first = await startDataDirServer(dir);
    child = first.child;
    assert.match(first.out, /storage: sqlite .*kubeloom\.db \(WAL, synchronous=full/);
    // Writes in flight together: each one answered 201 must be there after the crash.
    const acked = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await fetch(first.url + cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } }) });
        assert.equal(res.status, 201);
        return ((await res.json()) as { metadata: { name: string; resourceVersion: string } }).metadata;
      }),
    );
    const del = await fetch(`${first.url}${cms}/cm-0`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    const before = ((await (await fetch(first.url + cms)).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    await kill9(first.child);

    const second = await startDataDirServer(dir);
    child = second.child;
    const list = (await (await fetch(second.url + cms)).json()) as { metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string; resourceVersion: string } }> };
    const byName = new Map(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    for (const m of acked.slice(1)) assert.equal(byName.get(m.name), m.resourceVersion, m.name);
    assert.equal(byName.has('cm-0'), false);
    // The list's revision is at least the one before the crash (the restart writes the kubernetes Endpoints).
    assert.ok(Number(list.metadata.resourceVersion) >= Number(before));
    const res = await fetch(second.url + cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } }) });
    const after = ((await res.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    assert.ok(Number(after) > Number(list.metadata.resourceVersion));
    // The watch cache starts at the revision the restarted server loaded, as kube-apiserver's: 410.
    const w = await fetch(`${second.url}${cms}?watch=1&resourceVersion=${acked[0]!.resourceVersion}`);
    const text = await w.text();
    assert.match(text, /"type":"ERROR".*"code":410/);
    await kill9(second.child);
  } finally {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) await kill9(child);
    await rm(dir, { recursive: true, force: true });
  }
});
