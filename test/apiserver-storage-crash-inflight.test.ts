// Crash safety of `kubeloom apiserver --data-dir` under load: kill -9 while creates, updates and deletes are in
// flight from concurrent clients, twice. After each restart every acknowledged write is there as acknowledged
// (the one request a client had in flight at the crash may or may not have landed: either outcome is allowed,
// nothing else is), the list's resourceVersion is at least every acknowledged one, and the first write after the
// restart gets a larger resourceVersion than any write before it. apiserver-storage-crash.test.ts kills a quiet
// server; this one kills it mid-write, as the "every acknowledged write survives kill -9" asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDataDirServer } from './support/data-dir-server.ts';

const cms = '/api/v1/namespaces/default/configmaps';
const writers = 6;
// Acknowledged writes per cycle before the kill: enough that every writer is mid-request when it comes.
const ackedBeforeKill = 150;


/** What a client knows of one ConfigMap: its last acknowledged state and the request it had in flight, if any. */
interface Known {
  acked: { rv: string; v: number } | 'absent';
  inFlight?: { v: number } | 'delete';
}

type Cm = { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> };

/**
 * One writer: creates its ConfigMaps, then updates (PUT with the acknowledged resourceVersion), deletes and
 * re-creates them in turn until the server goes away. Each name belongs to one writer, which has at most one
 * request in flight.
 */
async function writer(url: string, id: number, known: Map<string, Known>, acked: { n: number; maxRv: number; onAck: () => void }): Promise<void> {
  const names = Array.from({ length: 4 }, (_, i) => `w${id}-${i}`);
  for (let step = 0; ; step++) {
    const name = names[step % names.length]!;
    const k = known.get(name) ?? { acked: 'absent' };
    known.set(name, k);
    const v = step;
    const body = (rv?: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(rv === undefined ? {} : { resourceVersion: rv }) }, data: { v: String(v) } });
    let res: Response;
    try {
      if (k.acked === 'absent') {
        k.inFlight = { v };
        res = await fetch(url + cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body() });
      } else if (step % 7 === 3) {
        k.inFlight = 'delete';
        res = await fetch(`${url}${cms}/${name}`, { method: 'DELETE' });
      } else {
        k.inFlight = { v };
        res = await fetch(`${url}${cms}/${name}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: body(k.acked.rv) });
      }
      const answer = (await res.json()) as Cm;
      assert.ok(res.status === 200 || res.status === 201, `${name}: ${res.status} ${JSON.stringify(answer)}`);
      // A delete is answered with a Status (ConfigMaps' registry does not return the deleted object).
      if (k.inFlight === 'delete') k.acked = 'absent';
      else {
        k.acked = { rv: answer.metadata.resourceVersion, v };
        acked.maxRv = Math.max(acked.maxRv, Number(answer.metadata.resourceVersion));
      }
      delete k.inFlight;
      acked.n++;
      acked.onAck();
    } catch (err) {
      if (err instanceof assert.AssertionError) throw err;
      return; // the server was killed: this request's fate is unknown (k.inFlight says what it was)
    }
  }
}

test('kubeloom apiserver --data-dir: kill -9 during concurrent creates, updates and deletes loses no acknowledged write, twice', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-crash-inflight-'));
  const known = new Map<string, Known>();
  let child: ChildProcess | undefined;
  try {
    let server = await startDataDirServer(dir);
    child = server.child;
    let maxRvEver = 0;
    for (let cycle = 0; cycle < 2; cycle++) {
      const counter = { n: 0, maxRv: 0, onAck: (): void => undefined };
      const enough = new Promise<void>((resolve) => (counter.onAck = () => counter.n >= ackedBeforeKill && resolve()));
      const running = Array.from({ length: writers }, (_, id) => writer(server.url, id, known, counter));
      await enough;
      const exited = once(server.child, 'exit');
      server.child.kill('SIGKILL');
      await exited;
      await Promise.all(running);
      maxRvEver = Math.max(maxRvEver, counter.maxRv);
      const inFlight = [...known.values()].filter((k) => k.inFlight !== undefined).length;
      assert.ok(inFlight > 0, 'the kill came while requests were in flight');

      server = await startDataDirServer(dir);
      child = server.child;
      const list = (await (await fetch(server.url + cms)).json()) as { metadata: { resourceVersion: string }; items: Cm[] };
      const stored = new Map(list.items.map((o) => [o.metadata.name, o]));
      for (const [name, k] of known) {
        const s = stored.get(name);
        const asAcked = k.acked === 'absent' ? s === undefined : s !== undefined && s.metadata.resourceVersion === k.acked.rv && s.data?.v === String(k.acked.v);
        const asInFlight = k.inFlight === undefined ? false : k.inFlight === 'delete' ? s === undefined : s !== undefined && s.data?.v === String(k.inFlight.v);
        assert.ok(asAcked || asInFlight, `cycle ${cycle}, ${name}: stored ${JSON.stringify(s)}, acknowledged ${JSON.stringify(k.acked)}, in flight ${JSON.stringify(k.inFlight)}`);
        // Bring the client's knowledge up to what the server kept, so the next cycle continues from it.
        k.acked = s === undefined ? 'absent' : { rv: s.metadata.resourceVersion, v: Number(s.data?.v) };
        delete k.inFlight;
      }
      assert.ok(Number(list.metadata.resourceVersion) >= maxRvEver, `list rv ${list.metadata.resourceVersion} < acknowledged ${maxRvEver}`);
      const res = await fetch(server.url + cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-${cycle}` } }) });
      const after = Number(((await res.json()) as Cm).metadata.resourceVersion);
      assert.ok(after > Number(list.metadata.resourceVersion) && after > maxRvEver, `rv after restart ${after}`);
      maxRvEver = after;
    }
    const exited = once(server.child, 'exit');
    server.child.kill('SIGKILL');
    await exited;
  } finally {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
});
