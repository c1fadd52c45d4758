/**
 * The namespace the process runs in (controller-runtime pkg/leaderelection/leader_election.go
 * getInClusterNamespace): the service account's namespace file every pod gets. The leader-election
 * Lease defaults to it, so replicas of an operator deployed in `operators` meet in `operators` without
 * configuration.
 *
 * Where kubeloom differs: out of cluster (no such file) upstream fails ("not running in-cluster, please
 * specify LeaderElectionNamespace"); kubeloom falls back to `default`, so a manager started from a
 * laptop against a dev cluster needs no option.
 */
import { readFileSync } from 'node:fs';

/** Where a pod's service account namespace is mounted (inClusterNamespacePath upstream). */
export const inClusterNamespacePath = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace in `path` (trimmed), or `fallback` when the file is missing or empty. */
export function inClusterNamespace(path: string = inClusterNamespacePath, fallback = 'default'): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
  const ns = text.trim();
  return ns === '' ? fallback : ns;
}
