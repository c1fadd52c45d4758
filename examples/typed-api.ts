/**
 * The generated typed API: subresource methods, deeply typed apply configurations, and custom
 * resources declared in TypeScript. Runs on the embedded API server: `node examples/typed-api.ts`.
 */
import { newClientset } from 'kubeloom/kubernetes';
import { startApiServer } from 'kubeloom/testing';

const server = await startApiServer();
const clientset = newClientset({ host: server.url, qps: -1 });
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
await clientset.appsV1().deployments('default').create({ metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template } });
await clientset.coreV1().pods('default').create({ metadata: { name: 'web-0', labels: { app: 'web' } }, spec: template.spec });
server.setPodLogs('default', 'web-0', ['ready'], 'c');
await clientset.coreV1().serviceAccounts('default').create({ metadata: { name: 'robot' } });
const pods = clientset.coreV1().pods('default');

// #region subresources
const scale = await clientset.appsV1().deployments('default').getScale('web'); // autoscaling/v1 Scale
await clientset.appsV1().deployments('default').updateScale('web', { ...scale, spec: { replicas: 5 } });
const log = await pods.getLog('web-0', { container: 'c', tailLines: 100 }); // text
const token = await clientset.coreV1().serviceAccounts('default').createToken('robot', { spec: { audiences: ['api'] } });
// #endregion
console.log((await clientset.appsV1().deployments('default').getScale('web')).spec?.replicas, JSON.stringify(log), token.status?.token !== undefined);

// #region apply
await clientset.appsV1().deployments('default').apply(
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
  },
  { fieldManager: 'my-controller' },
);
// spec: { replicas: 'three' }           → error: string is not assignable to number
// containers: [{ image: 'nginx' }]      → error: property 'name' is missing
// #endregion

// #region define-crd
import { defineCrd, s, type ObjectOf } from 'kubeloom/apiextensions';

const widgets = defineCrd({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      subresources: { status: {} },
      schema: s.object({
        spec: s.object({ size: s.integer({ minimum: 0 }), color: s.enum(['red', 'blue']) }, { required: ['size'] }),
      }),
    },
  ],
});
type Widget = ObjectOf<typeof widgets>; // { spec?: { size: number; color?: 'red' | 'blue' } } and the object fields
await clientset.apiextensionsV1().customResourceDefinitions().create(widgets.manifest);
const client = clientset.forCustomResource(widgets.resource('v1'), 'default'); // ResourceClient<Widget, ...>
const w: Widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, color: 'red' } };
await client.create(w);
// #endregion
console.log((await client.list()).items.map((o) => o.spec?.size));

await clientset.close();
await server.stop();
