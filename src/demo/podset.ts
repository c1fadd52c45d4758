/**
 * The demo's custom resource: a PodSet keeps `spec.replicas` Pods matching `spec.selector`, made from
 * `spec.template` — a ReplicaSet by another name, so the controller can be compared line by line
 * with kubernetes/pkg/controller/replicaset.
 */
import type { CustomResourceDefinition, JSONSchemaProps } from '../api/apiextensions/v1.ts';
import type { PodTemplateSpec } from '../api/core/v1.ts';
import type { LabelSelector, ObjectMeta } from '../api/meta/v1.ts';

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

/** PodSet spec. */
export interface PodSetSpec {
  /** Desired number of pods (default 1). */
  replicas?: number;
  /** Which pods count as this PodSet's; must match the template's labels. */
  selector: LabelSelector;
  /** What new pods look like. */
  template: PodTemplateSpec;
}

/** PodSet status, written by the controller through the status subresource. */
export interface PodSetStatus {
  /** Pods currently owned (created and not being deleted). */
  replicas?: number;
  /** Owned pods whose Ready condition is True. */
  readyReplicas?: number;
  /** The metadata.generation this status describes. */
  observedGeneration?: number;
}

/** A PodSet object. */
export interface PodSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PodSetSpec;
  status?: PodSetStatus;
}

// kubernetes-types has no x-kubernetes-* extension fields, hence the cast below.
const podSetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['selector', 'template'],
      properties: {
        replicas: { type: 'integer', minimum: 0, default: 1 },
        selector: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        readyReplicas: { type: 'integer' },
        observedGeneration: { type: 'integer', format: 'int64' },
      },
    },
  },
};

/** The CustomResourceDefinition of PodSets (the same document as deploy/crd.yaml). */
export const podSetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${podSetResource}.${podSetGroup}` },
  spec: {
    group: podSetGroup,
    scope: 'Namespaced',
    names: { plural: podSetResource, singular: 'podset', kind: podSetKind, listKind: 'PodSetList', shortNames: ['ps'] },
    versions: [
      {
        name: podSetVersion,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Current', type: 'integer', jsonPath: '.status.replicas' },
          { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: { openAPIV3Schema: podSetSchema as JSONSchemaProps },
      },
    ],
  },
};
