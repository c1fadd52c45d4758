/**
 * The cert-manager overlay (kubebuilder's config/certmanager plus the replacements of
 * config/default/kustomization.yaml that inject the CA): a self-signed Issuer, the Certificate for the
 * webhook Service's DNS names written to the `webhook-server-cert` Secret the Deployment mounts, and
 * `cert-manager.io/inject-ca-from` on the webhook configurations and on CRDs with a conversion webhook,
 * so cert-manager's cainjector fills their caBundle.
 *
 * An overlay on config/default, not part of it, since a bare cluster has no cert-manager CRDs
 * (`kubectl apply -k config/default` must work there). Overlay objects carry their final names
 * (kustomize applies the base's namePrefix and namespace to the base only), computed from the project
 * name here.
 */
import { webhookServiceName } from './crd.ts';
import { webhookCertSecret } from './manager.ts';

/** A cert-manager object (cert-manager.io/v1); typed loosely, its CRDs are not kubeloom's. */
export interface CertManagerObject {
  /** cert-manager.io/v1. */
  apiVersion: 'cert-manager.io/v1';
  /** Issuer or Certificate. */
  kind: 'Issuer' | 'Certificate';
  /** Name and namespace. */
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  /** The object's spec. */
  spec: Record<string, unknown>;
}

/** The Issuer and Certificate, with their final names. */
export function certManagerObjects(prefix: string, namespace: string, labels: Record<string, string>): CertManagerObject[] {
  const service = `${prefix}${webhookServiceName}`;
  return [
    { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { labels, name: `${prefix}selfsigned-issuer`, namespace }, spec: { selfSigned: {} } },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { labels, name: `${prefix}serving-cert`, namespace },
      spec: {
        dnsNames: [`${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`],
        issuerRef: { kind: 'Issuer', name: `${prefix}selfsigned-issuer` },
        secretName: webhookCertSecret,
      },
    },
  ];
}

/** The annotation cert-manager's cainjector reads: `<namespace>/<certificate>`. */
export function injectCaAnnotation(prefix: string, namespace: string): Record<string, string> {
  return { 'cert-manager.io/inject-ca-from': `${namespace}/${prefix}serving-cert` };
}
