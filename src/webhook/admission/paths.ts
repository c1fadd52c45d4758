/**
 * The paths controller-runtime's builder serves webhooks at (pkg/builder/webhook.go,
 * generateMutatePath / generateValidatePath / the conversion path): `/mutate-<group>-<version>-<kind>`
 * and `/validate-<group>-<version>-<kind>`, the group's dots turned into dashes and the kind in lower
 * case (the core group gives `/mutate--v1-pod`, as upstream), and `/convert`.
 */
import type { GroupVersionKind } from './types.ts';

function suffix(gvk: GroupVersionKind): string {
  return `${gvk.group.replace(/\./g, '-')}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}

/** `/mutate-<group with dashes>-<version>-<kind in lower case>`. */
export function generateMutatePath(gvk: GroupVersionKind): string {
  return `/mutate-${suffix(gvk)}`;
}

/** `/validate-<group with dashes>-<version>-<kind in lower case>`. */
export function generateValidatePath(gvk: GroupVersionKind): string {
  return `/validate-${suffix(gvk)}`;
}

/** The path of the conversion webhook: `/convert`. */
export const conversionPath = '/convert';
