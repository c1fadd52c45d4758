/**
 * The reconciler `kubeloom create api` writes for a kind, and its test (kubebuilder's
 * internal/controller/<kind>_controller.go and _test.go).
 */
import { versionSuffix, type KindNames } from '../names.ts';

/** src/controller/<kind>-controller.ts. */
export function controllerTs(k: KindNames): string {
  const descriptor = `${k.plural}${versionSuffix(k.version)}`;
  return `/**
 * Reconciles ${k.kind}s: reads the ${k.kind}, brings the cluster to what its spec asks for, and records
 * what it saw in status (observedGeneration and a Ready condition).
 *
 * RBAC comes from the builder: \`for\` grants get/list/watch on ${k.plural} and update/patch on
 * ${k.plural}/status; \`.owns(kind)\` grants create/update/patch/delete on what it creates;
 * \`.withRbac({ kind, verbs })\` declares anything else the reconciler calls. \`npm run manifests\`
 * writes them to config/rbac/role.yaml.
 */
import { isNotFound } from 'kubeloom/apimachinery';
import { controllerManagedBy } from 'kubeloom/builder';
import type { Client, DeepReadonly } from 'kubeloom/client';
import type { ManagedController, Manager } from 'kubeloom/manager';
import type { ReconcileContext, Request, Result } from 'kubeloom/reconcile';
import { ${descriptor}, type ${k.kind} } from '../api/${k.lower}/index.ts';

/** Reconciles one ${k.kind}. */
export async function reconcile${k.kind}(request: Request, { client }: ReconcileContext<Client>): Promise<Result> {
  // Read from the cache: the cache's own object, frozen and typed so. Change a copy (deepCopy), or
  // write a new object built from it, as below.
  let ${k.camel}: DeepReadonly<${k.kind}>;
  try {
    ${k.camel} = await client.get(${descriptor}, request);
  } catch (err) {
    // Deleted: what it owns goes with it (garbage collection through owner references).
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const generation = ${k.camel}.metadata?.generation ?? 0;
  if (${k.camel}.status?.observedGeneration === generation) return undefined;

  // Your logic goes here: compare the spec with what exists, then create, update or delete.

  const ready = { type: 'Ready', status: 'True' as const, reason: 'Reconciled', message: 'the spec is applied', lastTransitionTime: new Date().toISOString().replace(/\\.\\d{3}Z$/, 'Z') };
  await client.updateStatus(${descriptor}, { ...${k.camel}, status: { ...${k.camel}.status, observedGeneration: generation, conditions: [ready] } });
  return undefined;
}

/** Adds the ${k.kind} controller to the manager. */
export function setup${k.kind}Controller(mgr: Manager): ManagedController<Client> {
  return controllerManagedBy(mgr).for(${descriptor}).complete(reconcile${k.kind});
}
`;
}

/** src/controller/<kind>-controller.test.ts. */
export function controllerTestTs(k: KindNames): string {
  const descriptor = `${k.plural}${versionSuffix(k.version)}`;
  const where = k.namespaced ? `namespace: 'default', name: 'sample'` : `name: 'sample'`;
  return `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from 'kubeloom/testing';
import { ${descriptor} } from '../api/${k.lower}/index.ts';
import { startTestEnv } from '../../test/env.ts';

test('a new ${k.kind} is reconciled: status records its generation and Ready', async (t) => {
  const { client } = await startTestEnv(t);
  const created = await client.create(${descriptor}, { apiVersion: '${k.group}/${k.version}', kind: '${k.kind}', metadata: { ${where} }, spec: { size: 2 } });
  const reconciled = await eventually(
    async () => {
      const current = await client.get(${descriptor}, { ${where} });
      assert.equal(current.status?.observedGeneration, created.metadata?.generation);
      return current;
    },
    { timeoutMs: 10_000 },
  );
  assert.deepEqual(
    reconciled.status?.conditions?.map((c) => [c.type, c.status]),
    [['Ready', 'True']],
  );
});
`;
}
