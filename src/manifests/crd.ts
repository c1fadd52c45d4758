/**
 * CustomResourceDefinitions for config/crd/bases (controller-gen's `crd` generator, from TypeScript
 * declarations instead of Go types and markers): the manifest `defineCrd` built, every version with its
 * schema, printer columns and subresources, the names the API server would default filled in
 * (singular, listKind), and, for a kind whose conversions are registered with the webhook builder, the
 * conversion stanza pointing at the webhook Service's `/convert` (kubebuilder's
 * config/crd/patches/webhook_in_<plural>.yaml, written into the base here).
 */
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import { rbacNames } from './rbac.ts';

/** The webhook Service's name before kustomize's namePrefix (kubebuilder's `webhook-service`). */
export const webhookServiceName = 'webhook-service';

/** Options of {@link crdManifest}. */
export interface CrdManifestOptions {
  /** Set the conversion webhook stanza (a conversion is registered for the kind). */
  conversionPath?: string;
}

/** The CRD as written to config/crd/bases/<group>_<plural>.yaml. */
export function crdManifest(declared: CustomResourceDefinition, options: CrdManifestOptions = {}): CustomResourceDefinition {
  const crd = structuredClone(declared);
  const names = crd.spec.names;
  const spec: CustomResourceDefinition['spec'] = {
    ...(options.conversionPath !== undefined
      ? {
          conversion: {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { name: webhookServiceName, namespace: rbacNames.namespace, path: options.conversionPath } }, conversionReviewVersions: ['v1'] },
          },
        }
      : {}),
    group: crd.spec.group,
    names: { ...names, listKind: names.listKind ?? `${names.kind}List`, singular: names.singular ?? names.kind.toLowerCase() },
    scope: crd.spec.scope,
    versions: crd.spec.versions,
  };
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crd.metadata?.name ?? `${names.plural}.${crd.spec.group}` }, spec };
}

/** The file name kubebuilder gives a CRD: `<group>_<plural>.yaml`. */
export function crdFileName(crd: CustomResourceDefinition): string {
  return `${crd.spec.group}_${crd.spec.names.plural}.yaml`;
}
