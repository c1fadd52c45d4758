/**
 * The built-in API's model (src/codegen/model/kubernetes.json, generated from Kubernetes' OpenAPI v3
 * documents): the schemas, with their descriptions, that the embedded server publishes as OpenAPI for
 * the built-in kinds it serves.
 */
import model from '../codegen/model/kubernetes.json' with { type: 'json' };
import type { ApiModel, ResourceModel } from '../codegen/model.ts';

/** The model of the built-in API. */
export const apiModel = model as unknown as ApiModel;

/** The model of a built-in resource of a group/version, undefined when the model has none. */
export function modelResource(group: string, version: string, resource: string): ResourceModel | undefined {
  return apiModel.groupVersions.find((g) => g.group === group && g.version === version)?.resources.find((r) => r.name === resource);
}
