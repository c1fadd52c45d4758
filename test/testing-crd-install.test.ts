/**
 * installCrds against the embedded API server: CRDs from directories and files (YAML and JSON, several
 * documents, Lists), other kinds and files skipped, existing CRDs updated, the wait until they are served,
 * and the errors for missing paths, undecodable files, unsupported versions and CRDs that never settle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { isInvalid, isServiceUnavailable } from '../src/apimachinery/errors.ts';
import { CrdInstallError, installCrds, startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';

function crd(plural: string, kind: string, versions: string[] = ['v1']): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.install.example.com` },
    spec: {
      group: 'install.example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } })),
    },
  };
}

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<{ server: ApiServer; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-crds-'));
  const server = await startApiServer();
  t.after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, dir };
}

test('installs every CRD of a directory (YAML and JSON, several documents, Lists) and returns them established', async (t) => {
  const { server, dir } = await setup(t);
  const multi = [stringify(crd('widgets', 'Widget')), stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-a-crd' } }), '', stringify(crd('gadgets', 'Gadget'))].join('---\n');
  await writeFile(path.join(dir, 'a.yaml'), multi);
  await writeFile(path.join(dir, 'b.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [crd('gizmos', 'Gizmo')] }));
  await writeFile(path.join(dir, 'notes.txt'), 'not read');
  await mkdir(path.join(dir, 'nested'));
  await writeFile(path.join(dir, 'nested', 'c.yaml'), stringify(crd('ignored', 'Ignored')));
  const installed = await installCrds(server, { paths: [dir], errorIfPathMissing: true });
  assert.deepEqual(
    installed.map((c) => c.metadata?.name),
    ['widgets.install.example.com', 'gadgets.install.example.com', 'gizmos.install.example.com'],
  );
  assert.ok(installed.every((c) => c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')));
  const widget = await call(server, 'POST', '/apis/install.example.com/v1/namespaces/default/widgets', { body: { apiVersion: 'install.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'big' } } });
  assert.equal(widget.status, 422, 'the schema is enforced at once');
  assert.equal((await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ignored.install.example.com')).status, 404, 'subdirectories are not read');
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/not-a-crd')).status, 404, 'other kinds are skipped');
});

test('files and CRD objects are installed too; an existing CRD is updated to what is given', async (t) => {
  const { server, dir } = await setup(t);
  const file = path.join(dir, 'one.yml');
  await writeFile(file, stringify(crd('widgets', 'Widget')));
  await installCrds(server, { paths: [file] });
  const [updated] = await installCrds(server, { crds: [crd('widgets', 'Widget', ['v1', 'v2'])] });
  assert.deepEqual(
    updated?.spec.versions.map((v) => v.name),
    ['v1', 'v2'],
  );
  assert.equal((await call(server, 'GET', '/apis/install.example.com/v2')).status, 200);
});

test('missing paths are skipped unless errorIfPathMissing; bad files and old versions are typed errors', async (t) => {
  const { server, dir } = await setup(t);
  assert.deepEqual(await installCrds(server, { paths: [path.join(dir, 'nope')] }), []);
  await assert.rejects(installCrds(server, { paths: [path.join(dir, 'nope')], errorIfPathMissing: true }), (err: unknown) => {
    assert.ok(err instanceof CrdInstallError);
    assert.equal(err.code, 'ERR_CRD_PATH_MISSING');
    assert.equal(err.message, `CRD path ${path.join(dir, 'nope')} does not exist`);
    return true;
  });
  const broken = path.join(dir, 'broken.yaml');
  await writeFile(broken, 'kind: [unclosed\n');
  await assert.rejects(installCrds(server, { paths: [broken] }), (err: unknown) => err instanceof CrdInstallError && err.code === 'ERR_CRD_DECODE' && err.message.startsWith(`${broken}: document 1: `));
  const old = path.join(dir, 'old.yaml');
  await writeFile(old, stringify({ ...crd('olds', 'Old'), apiVersion: 'apiextensions.k8s.io/v1beta1' }));
  await assert.rejects(installCrds(server, { paths: [old] }), (err: unknown) => err instanceof CrdInstallError && err.code === 'ERR_CRD_UNSUPPORTED_VERSION');
  // The server's own refusal comes through unchanged.
  const invalid = crd('bad', 'Bad');
  invalid.spec.scope = 'Everywhere';
  await assert.rejects(installCrds(server, { crds: [invalid] }), (err: unknown) => isInvalid(err));
});

test('it waits through failing checks, and gives up with the last failure as the cause', async (t) => {
  const { server } = await setup(t);
  server.faults.failNext({ verb: 'get', resource: 'customresourcedefinitions', count: 2, status: 503 });
  const [ok] = await installCrds(server, { crds: [crd('widgets', 'Widget')], pollIntervalMs: 1 });
  assert.equal(ok?.metadata?.name, 'widgets.install.example.com');
  server.faults.failNext({ verb: 'get', resource: 'customresourcedefinitions', count: 1, status: 503 });
  await assert.rejects(installCrds(server, { crds: [crd('gadgets', 'Gadget')], maxTimeMs: 0 }), (err: unknown) => {
    assert.ok(err instanceof CrdInstallError);
    assert.equal(err.code, 'ERR_CRD_NOT_ESTABLISHED');
    assert.equal(err.message, 'CRDs not established after 0 ms: gadgets.install.example.com');
    assert.ok(isServiceUnavailable(err.cause));
    return true;
  });
});
