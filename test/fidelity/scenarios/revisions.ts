/**
 * Reads at a resourceVersion, and where kube-apiserver answers them from: the watch cache (a window of
 * recent events per resource, which starts when the resource's cache starts) or etcd (an exact revision).
 * Legacy `resourceVersion=N&limit=M`, continue tokens on the last page, revisions from the future, and a
 * watch from before a custom resource's cache existed.
 */
import type { Scenario, Step } from '../scenario.ts';
import { configMap, widget, widgetCrd, widgets } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const seed = (names: string[]): Step[] => names.map((n) => ({ req: `POST ${cms}`, body: configMap(n, { n }, { labels: { idx: n } }), keep: 'status' as const }));
const page = ['metadata', 'items.*.metadata.name', 'items.*.data'];
const future = '999999999999';

export const revisions: Scenario[] = [
  {
    id: 'list/legacy-limit-at-revision',
    title: 'resourceVersion=N&limit=M is served exactly at N (etcd), its continue token stays at N; NotOlderThan with a limit and no limit serve the latest',
    steps: [
      ...seed(['a', 'b', 'c']),
      { req: `GET ${cms}/c`, save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { data: { n: 'a2' } }, keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b0', { n: 'b0' }), keep: 'status' },
      { req: `DELETE ${cms}/c`, keep: 'status' },
      { req: `GET ${cms}?resourceVersion={{rv}}&limit=2`, pick: page, save: { next: 'metadata.continue' } },
      { req: `GET ${cms}?limit=2&continue={{next}}`, pick: page },
      { req: `GET ${cms}?resourceVersion={{rv}}&resourceVersionMatch=NotOlderThan&limit=2`, pick: ['metadata.continue', 'metadata.remainingItemCount', 'items.*.metadata.name', 'items.*.data'] },
      // The watch cache's list comes in no defined order in v1.24.
      { req: `GET ${cms}?resourceVersion={{rv}}`, pick: ['items.*.metadata.name', 'items.*.data'], unordered: true },
      { req: `GET ${cms}?resourceVersion={{rv}}&resourceVersionMatch=Exact`, pick: page },
    ],
  },
  {
    id: 'list/continue-on-last-page',
    title: 'A continue token comes with a full page whenever any key follows, even when nothing after it matches the selector; remainingItemCount only without selectors',
    steps: [
      ...seed(['a', 'b', 'c', 'd']),
      { req: `GET ${cms}?limit=2&labelSelector=idx+in+(a,b)`, pick: page, save: { next: 'metadata.continue' } },
      { req: `GET ${cms}?limit=2&continue={{next}}&labelSelector=idx+in+(a,b)`, pick: page },
      { req: `GET ${cms}?limit=2&labelSelector=idx+in+(c,d)`, pick: page },
      { req: `GET ${cms}?limit=4`, pick: page },
      { req: `GET ${cms}?limit=3`, pick: page, save: { next3: 'metadata.continue' } },
      { req: `GET ${cms}?limit=3&continue={{next3}}`, pick: page },
      { req: `GET ${cms}?limit=1&fieldSelector=metadata.name%3Dd`, pick: page },
    ],
  },
  {
    id: 'list/future-resource-versions',
    title: 'A resourceVersion past the current revision: Exact and legacy limit ask etcd for it, NotOlderThan with a limit checks it after reading, the watch cache waits then gives up',
    masks: [/current: \d+/, /future revision/],
    steps: [
      { req: `GET ${cms}?resourceVersion=${future}&resourceVersionMatch=Exact` },
      { req: `GET ${cms}?resourceVersion=${future}&limit=1` },
      { req: `GET ${cms}?resourceVersion=${future}&resourceVersionMatch=Exact&limit=1` },
      { req: `GET ${cms}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1` },
      { req: `GET ${cms}?resourceVersion=${future}` },
      { req: `GET ${cms}/x?resourceVersion=${future}` },
    ],
  },
  {
    id: 'watch/future-resource-version',
    title: 'A watch from a resourceVersion in the future opens and sends only events after that revision',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&resourceVersion=${future}&timeoutSeconds=2` },
      ...seed(['a']),
      { events: 'w', untilEnd: true },
    ],
  },
  {
    id: 'watch/cache-window-start',
    title: "A watch of custom resources from a revision before their watch cache started: 410 Expired, though nothing was compacted; from the list's revision it gets the events",
    masks: [/too old resource version: \d+ \(\d+\)/],
    steps: [
      { req: `POST ${cms}`, body: configMap('before'), save: { before: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `POST ${crds}`, body: widgetCrd(), keep: 'status' },
      { req: `GET ${widgets}`, until: 200, save: { listed: 'metadata.resourceVersion' }, keep: 'status' },
      { watch: 'old', req: `GET ${widgets}?watch=true&resourceVersion={{before}}&timeoutSeconds=2` },
      { events: 'old', untilEnd: true },
      { watch: 'w', req: `GET ${widgets}?watch=true&resourceVersion={{listed}}&timeoutSeconds=3` },
      { req: `POST ${widgets}`, body: widget('w1'), keep: 'status' },
      { events: 'w', count: 1 },
    ],
    cleanup: [{ req: `DELETE ${crds}/widgets.{{r}}.fidelity.kubeloom.test` }],
  },
];
