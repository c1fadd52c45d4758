/**
 * Merging several kubeconfigs with client-go's precedence (loader.go, ClientConfigLoadingRules.Load):
 * for each named cluster, user and context the FIRST config that defines the name wins (entries are
 * never merged field by field), `current-context` and `preferences.colors` come from the first config
 * that sets them, and extensions are merged per name with the same first-wins rule.
 */
import type { KubeConfig } from './api/types.ts';
import { getEntry, newKubeConfig, setEntry } from './api/types.ts';

function mergeRecords<T>(target: Record<string, T>, source: Record<string, T>): void {
  for (const [name, value] of Object.entries(source)) {
    if (getEntry(target, name) === undefined) setEntry(target, name, value);
  }
}

/**
 * Merges `configs`, highest precedence first (the order of the KUBECONFIG list).
 * The inputs are not modified; entries are shared, not copied.
 */
export function mergeKubeConfigs(configs: readonly KubeConfig[]): KubeConfig {
  const merged = newKubeConfig();
  for (const config of configs) {
    mergeRecords(merged.clusters, config.clusters);
    mergeRecords(merged.authInfos, config.authInfos);
    mergeRecords(merged.contexts, config.contexts);
    if (merged.currentContext === '' && config.currentContext !== '') merged.currentContext = config.currentContext;
    if (merged.preferences.colors === undefined && config.preferences.colors !== undefined) merged.preferences.colors = config.preferences.colors;
    if (config.preferences.extensions !== undefined) mergeRecords((merged.preferences.extensions ??= {}), config.preferences.extensions);
    if (config.extensions !== undefined) mergeRecords((merged.extensions ??= {}), config.extensions);
  }
  return merged;
}
