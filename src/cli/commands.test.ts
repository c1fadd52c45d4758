import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.join(import.meta.dirname, '..', '..');
const main = path.join(root, 'src', 'cli', 'main.ts');
const execFileAsync = promisify(execFile);

async function kubeloom(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [main, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('kubeloom --version and -v print the package version alone; `kubeloom version` adds Node.js', async () => {
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  assert.deepEqual(await kubeloom('--version'), { code: 0, stdout: `${version}\n`, stderr: '' });
  assert.deepEqual(await kubeloom('-v'), { code: 0, stdout: `${version}\n`, stderr: '' });
  assert.deepEqual(await kubeloom('version'), { code: 0, stdout: `kubeloom ${version} (node ${process.versions.node})\n`, stderr: '' });
});

test('kubeloom --help lists every command with its description, and the global flags', async () => {
  const { code, stdout } = await kubeloom('--help');
  assert.equal(code, 0);
  const commands = stdout.slice(stdout.indexOf('commands:\n') + 'commands:\n'.length, stdout.indexOf('\n\nflags:')).split('\n');
  const described = new Map(commands.map((line) => line.trim().split(/\s{3,}/) as [string, string]));
  assert.equal(described.get('apiserver'), 'run the embedded Kubernetes API server on loopback (in memory, SQLite with --data-dir, or etcd with --etcd-servers), for kubectl and tests');
  assert.equal(described.get('demo'), 'run the PodSet demo controller on the embedded API server (on a cluster only with --kubeconfig, --context or --in-cluster)');
  assert.equal(described.get('get'), "list objects of a resource in the server's table format, like kubectl get");
  assert.equal(described.get('version'), 'print the kubeloom and Node.js versions');
  assert.deepEqual([...described.keys()], [...described.keys()].sort());
  // Every registered command has a non-empty description.
  for (const line of commands) assert.match(line, /^ {2}[a-z-]+ {3,}\S/);
  assert.match(stdout, /-v, --version/);
  assert.deepEqual(await kubeloom(), { code: 0, stdout, stderr: '' });
});

test('kubeloom help <command> prints that command’s usage; unknown commands and flags exit 2 with the help', async () => {
  const help = await kubeloom('help', 'get');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: kubeloom get <resource> \[name\] \[flags\]/);
  assert.equal((await kubeloom('help', 'version')).stdout, 'usage: kubeloom version\n\nPrints the kubeloom and Node.js versions.\n');
  const unknown = await kubeloom('frobnicate');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^kubeloom: unknown command "frobnicate"\n/);
  assert.match(unknown.stderr, /commands:\n/);
  const flag = await kubeloom('--frobnicate');
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^kubeloom: unknown flag "--frobnicate"\n/);
});
