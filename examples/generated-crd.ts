/**
 * Using what `kubeloom generate crd` writes: the types, and the registration exported per kind
 * (`widgetResource`), which the clientset and the informer factory take. examples/generated/ was
 * written by `npx kubeloom generate crd test/fixtures/crds/widgets.yaml --out examples/generated`.
 * Builds the clients only (no request), so it runs anywhere: `node examples/generated-crd.ts`.
 */
import { newClientset } from 'kubeloom/kubernetes';
import { newSharedInformerFactory } from 'kubeloom/informers';
import type { Widget } from './generated/example.com/v1/index.ts';

const clientset = newClientset({ host: 'http://127.0.0.1:8080' });
const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 0 });

// #region use
import { widgetResource } from './generated/example.com/v1/index.ts';
const widgets = clientset.forCustomResource(widgetResource, 'default'); // ResourceClient<Widget, WidgetApplyConfiguration>
const informer = factory.forCustomResource(widgetResource).informer(); // .lister() gives a Lister<Widget>
// #endregion

const lister = factory.forCustomResource(widgetResource).lister();
const cached: Widget[] = lister.list();
console.log(widgets.constructor.name, informer.hasSynced(), cached.length);
await clientset.close();
