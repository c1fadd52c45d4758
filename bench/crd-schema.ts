/**
 * CRD schema cost in the embedded API server: server start time, and a round of N creates plus one list of a
 * custom resource with a schema (types, bounds, enum, pattern, defaults, a list-type map and two CEL rules),
 * with schema validation on, off (`crdSchemaValidation: false`: pruning and defaulting only), and for a
 * schema-less CRD (x-kubernetes-preserve-unknown-fields at the root); then, interleaved, with the server's
 * controllers (garbage collector, namespace controller) off and on.
 *
 * Run: ./node_modules/.bin/node bench/crd-schema.ts [objects]
 */
import { Pool } from 'undici';
import { startApiServer, type ApiServerOptions } from '../src/testing/index.ts';

const objects = Number(process.argv[2] ?? 1000);
const concurrency = 16;

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 100 },
        name: { type: 'string', maxLength: 30, pattern: '^[a-z0-9-]+$' },
        color: { type: 'string', enum: ['red', 'green', 'blue'] },
        ports: { type: 'array', maxItems: 8, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer', default: 80 } } } },
        mode: { type: 'string', default: 'auto' },
      },
      'x-kubernetes-validations': [{ rule: 'self.size <= 50 || self.color == "red"' }, { rule: 'self.ports.all(p, p.port > 0)' }],
    },
  },
};

function crd(withSchema: boolean): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.bench.example.com' },
    spec: {
      group: 'bench.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: withSchema ? schema : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

async function round(label: string, options: ApiServerOptions, withSchema: boolean): Promise<void> {
  const t0 = performance.now();
  const server = await startApiServer(options);
  const started = performance.now() - t0;
  const pool = new Pool(server.url, { connections: concurrency });
  try {
    const post = async (path: string, body: unknown): Promise<void> => {
      const r = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.body.text();
      if (r.statusCode !== 201) throw new Error(`${path}: ${r.statusCode}`);
    };
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(withSchema));
    const base = '/apis/bench.example.com/v1/namespaces/default/widgets';
    const c0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < objects) {
          const i = next++;
          await post(base, { apiVersion: 'bench.example.com/v1', kind: 'Widget', metadata: { name: `w-${i}` }, spec: { size: 1 + (i % 50), name: `widget-${i}`, color: 'blue', ports: [{ name: 'http' }, { name: 'https', port: 443 }] } });
        }
      }),
    );
    const created = performance.now() - c0;
    const l0 = performance.now();
    const r = await pool.request({ path: base, method: 'GET' });
    const items = (JSON.parse(await r.body.text()) as { items: unknown[] }).items.length;
    const listed = performance.now() - l0;
    console.log(`${label.padEnd(28)} start ${started.toFixed(1)} ms  create ${objects}: ${created.toFixed(0)} ms (${((objects / created) * 1000).toFixed(0)}/s)  list ${items}: ${listed.toFixed(1)} ms`);
  } finally {
    await pool.close();
    await server.stop();
  }
}

// One warm-up round so module loading and JIT do not count against the first variant.
await round('warm-up', {}, true);
await round('schema, validation on', {}, true);
await round('schema, validation off', { crdSchemaValidation: false }, true);
await round('schema-less CRD', {}, false);
// What the garbage collector and namespace controller watching every write cost: the validation-on round
// without and with them, interleaved three times so that warm-up favours neither.
for (let i = 0; i < 3; i++) {
  await round('controllers off', { controllers: { garbageCollector: false, namespace: false } }, true);
  await round('controllers on (default)', {}, true);
}
