/**
 * The shape of the derived protobuf model of the built-in API (generated into
 * generated/kubernetes-proto.ts by `npm run generate -- --proto-mirror DIR`, see src/codegen/proto-model.ts).
 */

/** A field: `[number, jsonName, type, flags]` (flags: r repeated, m map, o omitempty, p pointer, i inline). */
export type ProtoModelField = [number: number, json: string, type: string, flags: string];

/** The derived model. */
export interface ProtoModel {
  /** Where the inputs came from: repositories, release tag, Kubernetes version. */
  source: { repositories: string[]; tag: string; kubernetesVersion: string };
  /** `apiVersion` (`v1`, `apps/v1`, `meta.k8s.io/v1`) → proto package. */
  groupVersions: Record<string, string>;
  /** Messages whose Go type is a named slice (`type Verbs []string`): their JSON is the `items` array. */
  sliceWrappers: string[];
  /** Fully qualified message name → fields in proto declaration order. */
  messages: Record<string, ProtoModelField[]>;
}
