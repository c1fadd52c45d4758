/**
 * POST pods/{name}/binding: NamespaceLifecycle admission of the create, then the pod registry's binding
 * (registry/core/pod-binding.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { bindingSuccess, bindPod } from '../registry/core/pod-binding.ts';
import { checkType, decodeObject } from './request-body.ts';
import { send } from './response.ts';
import type { RequestScope, Target } from './scope.ts';
import { dryRunOf } from './write-options.ts';

/** Serves POST pods/{name}/binding: 201 with a Success Status. */
export async function createBinding(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  const binding = decodeObject(req, body, 'Binding');
  checkType(scope.registry, { ...t, r: { ...t.r, kind: 'Binding' } }, binding);
  admitNamespaceLifecycle(scope.storage, { operation: 'CREATE', group: '', resource: 'pods', namespace: t.namespace, name: t.name!, object: binding });
  bindPod(scope, t.namespace, t.name!, binding, dryRun);
  send(res, 201, bindingSuccess);
}
