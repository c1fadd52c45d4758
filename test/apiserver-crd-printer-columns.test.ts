/**
 * CRD printer columns whose JSONPath uses filters, slices, unions and recursive descent, on both
 * backends: the cells are what kube-apiserver v1.24's table convertor computes with client-go's
 * util/jsonpath (the first value found, printed as the template prints it; none when nothing is found
 * or the path fails on the object).
 */
import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { e2eTest } from './support/backend.ts';

e2eTest('printer columns with JSONPath filters print True/False as kube-apiserver v1.24 does', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const plural = `lamps${sfx}`;
  const kind = `Lamp${sfx}`;
  const columns: [string, string, string][] = [
    ['Ready', 'string', '.status.conditions[?(@.type=="Ready")].status'],
    ['Lit', 'string', ".status.conditions[?(@.type=='Lit')].status"],
    ['Last', 'string', '.spec.parts[-1].name'],
    ['Second', 'integer', '.spec.parts[1].size'],
    ['Big', 'string', '.spec.parts[?(@.size>2)].name'],
    ['Images', 'string', '.spec..image'],
    ['Both', 'string', '.spec.parts[0,2].name'],
    ['Nothing', 'string', '.spec.nothing'],
    ['Mixed', 'string', '.spec.parts[?(@.size=="3")].name'],
    ['Out', 'string', '.spec.parts[7].name'],
  ];
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `lamp${sfx}`, kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never },
          additionalPrinterColumns: columns.map(([name, type, jsonPath]) => ({ name, type, jsonPath })),
        },
      ],
    },
  };
  await env.createCrd(crd);
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const lamps = new DynamicClient(rest).resource({ group, version: 'v1', resource: plural }).namespace(env.namespace);
  await lamps.create({
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name: 'l' },
    spec: { nothing: null, parts: [{ name: 'a', size: 1, image: 'x' }, { name: 'b', size: 3 }, { name: 'c', size: 5, image: 'y' }] },
    status: { conditions: [{ type: 'Lit', status: 'False' }, { type: 'Ready', status: 'True' }] },
  });
  const table = await rest.do({ verb: 'GET', path: `/apis/${group}/v1/namespaces/${env.namespace}/${plural}`, query: [], headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const body = JSON.parse(table.body.toString()) as { rows: { cells: unknown[] }[] };
  assert.deepEqual(body.rows[0]!.cells.slice(1, columns.length + 1), ['True', 'False', 'c', 3, 'b', 'x', 'a', '<no value>', null, null]);
});

e2eTest('a printer column whose JSONPath does not parse leaves it and every later column out of the tables, as kube-apiserver v1.24 does', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const plural = `gadgets${sfx}`;
  const kind = `Gadget${sfx}`;
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `gadget${sfx}`, kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never },
          additionalPrinterColumns: [
            { name: 'Good', type: 'string', jsonPath: '.spec.a' },
            // CRD validation only checks that the path starts with '.': the CRD is accepted.
            { name: 'Bad', type: 'string', jsonPath: '.spec.items[?(@.x==1' },
            { name: 'After', type: 'string', jsonPath: '.spec.b' },
          ],
        },
      ],
    },
  };
  await env.createCrd(crd);
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const gadgets = new DynamicClient(rest).resource({ group, version: 'v1', resource: plural }).namespace(env.namespace);
  await gadgets.create({ apiVersion: `${group}/v1`, kind, metadata: { name: 'g' }, spec: { a: 'hello', b: 'world' } });
  const table = await rest.do({ verb: 'GET', path: `/apis/${group}/v1/namespaces/${env.namespace}/${plural}`, query: [], headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const body = JSON.parse(table.body.toString()) as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  assert.deepEqual(body.columnDefinitions.map((c) => c.name), ['Name', 'Good']);
  assert.deepEqual(body.rows[0]!.cells, ['g', 'hello']);
});
