/**
 * POST pods/{name}/eviction: the body is a policy/v1 or policy/v1beta1 Eviction (kind and apiVersion
 * may be left out: policy/v1), the create's query options are checked, then the pod registry's eviction
 * (registry/core/pod-eviction.ts) runs. Upstream: `pkg/registry/core/pod/storage/eviction.go` and the
 * create handler (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`), which answers the
 * Success Status with code 201.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../object-meta.ts';
import { evictPod, evictionSuccess } from '../registry/core/pod-eviction.ts';
import { badRequest } from '../status.ts';
import { parseBody } from './request-body.ts';
import { sendObject, type Render } from './response.ts';
import type { RequestScope, Target } from './scope.ts';
import { createOptions } from './write-options.ts';

// The versions of Eviction the policy group registers.
const evictionVersions: ReadonlySet<string> = new Set(['policy/v1', 'policy/v1beta1']);

/** Serves POST pods/{name}/eviction: 201 with a Success Status once the pod is deleted. */
export function createEviction(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): void {
  createOptions(q, req, 'CreateOptions');
  const eviction = parseBody(req, body, 'Eviction');
  const apiVersion = typeof eviction.apiVersion === 'string' && eviction.apiVersion !== '' ? eviction.apiVersion : 'policy/v1';
  const kind = typeof eviction.kind === 'string' && eviction.kind !== '' ? eviction.kind : 'Eviction';
  if (!evictionVersions.has(apiVersion) || kind !== 'Eviction') {
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a Eviction: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`);
  }
  if (!isObject(eviction.metadata)) eviction.metadata = {};
  evictPod(scope, t.r, t.namespace, t.name!, eviction, q.getAll('dryRun'));
  sendObject(res, 201, evictionSuccess, render);
}
