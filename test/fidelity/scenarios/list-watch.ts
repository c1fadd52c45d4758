/**
 * LIST and WATCH options: pagination (limit, continue, remainingItemCount), resourceVersion and
 * resourceVersionMatch semantics and their invalid combinations, selectors, watch starting points,
 * timeouts, bookmarks, and watching one object.
 */
import type { Scenario, Step } from '../scenario.ts';
import { configMap } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const seed = (names: string[]): Step[] => names.map((n) => ({ req: `POST ${cms}`, body: configMap(n, { n }, { labels: { idx: n } }), keep: 'status' as const }));
const names = ['items.*.metadata.name'];

export const listWatch: Scenario[] = [
  {
    id: 'list/pagination',
    title: 'limit and continue: pages in key order, remainingItemCount, last page without a token',
    steps: [
      ...seed(['a', 'b', 'c', 'd', 'e']),
      { req: `GET ${cms}?limit=2`, pick: ['metadata', ...names], save: { next: 'metadata.continue' } },
      { req: `GET ${cms}?limit=2&continue={{next}}`, pick: ['metadata', ...names], save: { next2: 'metadata.continue' } },
      { req: `GET ${cms}?limit=2&continue={{next2}}`, pick: ['metadata', ...names] },
      { req: `GET ${cms}?limit=2&labelSelector=idx`, pick: ['metadata', ...names] },
    ],
  },
  {
    id: 'list/continue-errors',
    title: 'continue: a garbage token is 400, continue with a resourceVersion is 400',
    steps: [
      ...seed(['a', 'b']),
      { req: `GET ${cms}?limit=1`, save: { next: 'metadata.continue' }, keep: 'status' },
      { req: `GET ${cms}?continue=garbage` },
      { req: `GET ${cms}?continue={{next}}&resourceVersion=5` },
      { req: `GET ${cms}?continue={{next}}&resourceVersion=0`, pick: names, unordered: true },
    ],
  },
  {
    id: 'list/resource-version-semantics',
    title: 'resourceVersion: unset (consistent), 0 (any, ignores limit), Exact at an object version, NotOlderThan',
    steps: [
      ...seed(['a', 'b', 'c']),
      { req: `GET ${cms}/c`, save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `GET ${cms}?resourceVersion={{rv}}&resourceVersionMatch=Exact`, pick: ['metadata', ...names] },
      { req: `GET ${cms}?resourceVersion={{rv}}&resourceVersionMatch=NotOlderThan`, pick: names, unordered: true },
      { req: `GET ${cms}?resourceVersion={{rv}}&resourceVersionMatch=Exact&limit=1`, pick: ['metadata', ...names] },
      { req: `GET ${cms}?resourceVersion=0&limit=1`, pick: ['metadata.continue', ...names], unordered: true },
      { req: `GET ${cms}?resourceVersion={{rv}}&limit=1`, pick: ['metadata.continue', 'metadata.remainingItemCount', ...names] },
    ],
  },
  {
    id: 'list/invalid-combinations',
    title: 'ListOptions validation: match without resourceVersion, Exact with 0, unknown match, match with continue',
    steps: [
      { req: `GET ${cms}?resourceVersionMatch=Exact` },
      { req: `GET ${cms}?resourceVersion=0&resourceVersionMatch=Exact` },
      { req: `GET ${cms}?resourceVersion=1&resourceVersionMatch=Newest` },
      { req: `GET ${cms}?resourceVersionMatch=NotOlderThan&continue=abc` },
    ],
  },
  {
    id: 'list/too-large-resource-version',
    title: 'A resourceVersion in the future: 504 with ResourceVersionTooLarge for NotOlderThan',
    masks: [/current: \d+/],
    steps: [{ req: `GET ${cms}?resourceVersion=999999999999&resourceVersionMatch=NotOlderThan` }],
  },
  {
    id: 'list/bad-resource-version',
    title: 'resourceVersion that is not a number: 400 on list, get and watch',
    steps: [
      { req: `GET ${cms}?resourceVersion=abc` },
      { req: `GET ${cms}?resourceVersion=abc&resourceVersionMatch=Exact` },
      { req: `GET ${cms}?watch=true&resourceVersion=abc` },
    ],
  },
  {
    id: 'list/field-selectors',
    title: 'Field selectors: metadata.name, metadata.namespace, an unsupported field (400), a malformed selector, pod fields',
    steps: [
      ...seed(['a', 'b']),
      { req: `GET ${cms}?fieldSelector=metadata.name%3Db`, pick: names },
      { req: `GET ${cms}?fieldSelector=metadata.name!%3Db`, pick: names },
      { req: `GET ${cms}?fieldSelector=data.n%3Da` },
      { req: `GET ${cms}?fieldSelector=metadata.name%3D%3D%3D` },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods?fieldSelector=status.phase%3DPending,spec.nodeName%3D', pick: names },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods?fieldSelector=spec.restartPolicy%3DAlways' },
    ],
  },
  {
    id: 'list/label-selectors',
    title: 'Label selectors: set-based, exists, not-exists, malformed, invalid value',
    steps: [
      ...seed(['a', 'b', 'c']),
      { req: `GET ${cms}?labelSelector=idx+notin+(a,b)`, pick: names },
      { req: `GET ${cms}?labelSelector=idx,idx!%3Dc`, pick: names },
      { req: `GET ${cms}?labelSelector=idx+in+(a`, pick: ['code', 'reason', 'status'] },
      { req: `GET ${cms}?labelSelector=idx%3D%3D%3Da`, pick: ['code', 'reason', 'status'] },
      { req: `GET ${cms}?labelSelector=idx%3Dbad+value`, pick: ['code', 'reason', 'status'] },
    ],
  },
  {
    id: 'watch/from-resource-version',
    title: 'Watch from a resourceVersion replays later changes; from 0 starts with synthetic ADDED events',
    steps: [
      ...seed(['a']),
      { req: `GET ${cms}/a`, save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { data: { n: 'changed' } }, keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b'), keep: 'status' },
      { watch: 'from-rv', req: `GET ${cms}?watch=true&resourceVersion={{rv}}&timeoutSeconds=30` },
      { events: 'from-rv', count: 2 },
      { watch: 'from-0', req: `GET ${cms}?watch=true&resourceVersion=0&timeoutSeconds=30` },
      { events: 'from-0', count: 2, unordered: true },
      { watch: 'unset', req: `GET ${cms}?watch=true&timeoutSeconds=30` },
      { events: 'unset', count: 2, unordered: true },
    ],
  },
  {
    id: 'watch/selectors',
    title: 'Watch with a label selector: an object leaving the selection is DELETED, entering is ADDED',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&labelSelector=color%3Dblue&timeoutSeconds=30` },
      { req: `POST ${cms}`, body: configMap('x', {}, { labels: { color: 'red' } }), keep: 'status' },
      { req: `PATCH ${cms}/x`, type: 'merge', body: { metadata: { labels: { color: 'blue' } } }, keep: 'status' },
      { req: `PATCH ${cms}/x`, type: 'merge', body: { metadata: { labels: { color: 'green' } } }, keep: 'status' },
      { events: 'w', count: 2 },
    ],
  },
  {
    id: 'watch/single-object',
    title: 'Watch one object with fieldSelector=metadata.name',
    steps: [
      ...seed(['a', 'b']),
      { watch: 'w', req: `GET ${cms}?watch=true&fieldSelector=metadata.name%3Db&resourceVersion=0&timeoutSeconds=30` },
      { events: 'w', count: 1 },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { data: { n: 'x' } }, keep: 'status' },
      { req: `PATCH ${cms}/b`, type: 'merge', body: { data: { n: 'y' } }, keep: 'status' },
      { events: 'w', count: 1 },
    ],
  },
  {
    id: 'watch/timeout',
    title: 'A watch with timeoutSeconds=1 ends cleanly with no events',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&timeoutSeconds=1` },
      { events: 'w', untilEnd: true },
    ],
  },
  {
    id: 'watch/bookmarks',
    title: 'allowWatchBookmarks: the events, then a clean end at the timeout (the pre-timeout BOOKMARKs vary in number upstream and are not compared)',
    steps: [
      ...seed(['a']),
      { watch: 'w', req: `GET ${cms}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3` },
      { events: 'w', untilEnd: true, ignoreBookmarks: true },
    ],
  },
  {
    id: 'watch/bookmarks-not-allowed',
    title: 'Without allowWatchBookmarks no BOOKMARK is sent',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&timeoutSeconds=2` },
      { events: 'w', untilEnd: true },
    ],
  },
  {
    id: 'watch/invalid-options',
    title: 'Watch validation: resourceVersionMatch on a watch, sendInitialEvents without a match',
    steps: [
      { watch: 'match', req: `GET ${cms}?watch=true&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=1` },
      { watch: 'initial', req: `GET ${cms}?watch=true&sendInitialEvents=true&timeoutSeconds=1` },
      { watch: 'list-initial', req: `GET ${cms}?sendInitialEvents=true` },
    ],
  },
  {
    id: 'watch/legacy-path',
    title: 'The legacy /watch/ path prefix streams like ?watch=true',
    steps: [
      { watch: 'w', req: 'GET /api/v1/watch/namespaces/{{ns}}/configmaps?timeoutSeconds=30' },
      { req: `POST ${cms}`, body: configMap('x'), keep: 'status' },
      { events: 'w', count: 1 },
      { watch: 'one', req: 'GET /api/v1/watch/namespaces/{{ns}}/configmaps/x?timeoutSeconds=30' },
      { events: 'one', count: 1 },
    ],
  },
  {
    id: 'watch/too-old-resource-version',
    title: 'Watch from resourceVersion 1: 200 then an ERROR event with 410 Expired',
    masks: [/too old resource version: \d+ \(\d+\)/],
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&resourceVersion=1&timeoutSeconds=2` },
      { events: 'w', count: 1 },
    ],
  },
  {
    id: 'list/kubectl-get-names',
    title: 'kubectl get -o name and --chunk-size paging',
    steps: [
      ...seed(['a']),
      ...seed(['b', 'c']),
      { kubectl: 'get configmaps -o name' },
      { kubectl: 'get configmaps --chunk-size=1 -o name' },
    ],
  },
];
