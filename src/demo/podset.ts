/**
 * The demo's custom resource: a PodSet keeps `spec.replicas` Pods matching `spec.selector`, made from
 * `spec.template` — a ReplicaSet by another name, so the controller can be compared line by line
 * with kubernetes/pkg/controller/replicaset.
 */
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import type { PodTemplateSpec } from '../api/core/v1.ts';
import type { LabelSelector } from '../api/meta/v1.ts';
import { defineCrd, s, type ObjectOf } from '../apiextensions/crd-builder.ts';

/** The PodSet API group. */
export const podSetGroup = 'demo.kubeloom.dev';
/** The served (and stored) version. */
export const podSetVersion = 'v1alpha1';
/** `demo.kubeloom.dev/v1alpha1`. */
export const podSetApiVersion = `${podSetGroup}/${podSetVersion}`;
/** The kind. */
export const podSetKind = 'PodSet';
/** The plural resource name. */
export const podSetResource = 'podsets';
/** The finalizer the controller puts on every PodSet so its pods are deleted before it goes. */
export const podSetFinalizer = 'demo.kubeloom.dev/pods';

/**
 * The PodSet schema, declared with the CRD builder: the same structural schema as deploy/crd.yaml,
 * and the TypeScript type of PodSets with it. The selector and the template are kept as given
 * (preserve-unknown-fields) and typed as the built-in LabelSelector and PodTemplateSpec.
 */
const podSetSchema = s.object({
  spec: s.object(
    {
      /** Desired number of pods (default 1). */
      replicas: s.integer({ minimum: 0, default: 1 }),
      /** Which pods count as this PodSet's; must match the template's labels. */
      selector: s.preserveUnknown<LabelSelector>(),
      /** What new pods look like. */
      template: s.preserveUnknown<PodTemplateSpec>(),
    },
    { required: ['selector', 'template'] },
  ),
  status: s.object({
    /** Pods currently owned (created and not being deleted). */
    replicas: s.integer(),
    /** Owned pods whose Ready condition is True. */
    readyReplicas: s.integer(),
    /** The metadata.generation this status describes. */
    observedGeneration: s.integer({ format: 'int64' }),
  }),
});

/** The PodSet CRD as declared in TypeScript (manifest and per-version registration). */
export const podSetDefinition = defineCrd({
  group: podSetGroup,
  kind: podSetKind,
  plural: podSetResource,
  singular: 'podset',
  listKind: 'PodSetList',
  shortNames: ['ps'],
  scope: 'Namespaced',
  versions: [
    {
      name: podSetVersion,
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
      schema: podSetSchema,
    },
  ],
});

/** A PodSet object. */
export type PodSet = ObjectOf<typeof podSetDefinition>;
/** PodSet spec. */
export type PodSetSpec = NonNullable<PodSet['spec']>;
/** PodSet status, written by the controller through the status subresource. */
export type PodSetStatus = NonNullable<PodSet['status']>;

/** The registration of PodSets for `clientset.forCustomResource()` and `factory.forCustomResource()`. */
export const podSetResourceSpec = podSetDefinition.resource(podSetVersion);

/** The CustomResourceDefinition of PodSets (the same document as deploy/crd.yaml). */
export const podSetCrd: CustomResourceDefinition = podSetDefinition.manifest;
