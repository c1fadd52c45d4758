/**
 * Ordering resourceVersions. Kubernetes calls them opaque, but kube-apiserver's are etcd revisions
 * (decimal integers that only grow), and the watch-list and consistent-read features compare them
 * the same way (apiserver/pkg/storage/cacher's "resourceVersion ... is ahead"). kubeloom's embedded
 * server uses the same integers. Anything else compares as unknown.
 */

const decimal = /^(0|[1-9][0-9]*)$/;

/**
 * -1, 0 or 1 as `a` is older than, the same as or newer than `b`; undefined when either is not a
 * decimal integer (an unknown server's versions cannot be ordered).
 */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!decimal.test(a) || !decimal.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
