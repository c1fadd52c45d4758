/**
 * POST pods/{name}/binding, and POST bindings (the older form, which names the pod in the Binding's own
 * metadata: `pkg/registry/core/pod/storage/storage.go` BindingREST serves both): NamespaceLifecycle
 * admission of the create, then the pod registry's binding (registry/core/pod-binding.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { metaOf, str } from '../object-meta.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { bindingSuccess, bindPod } from '../registry/core/pod-binding.ts';
import { decodeObject } from './request-body.ts';
import { sendObject, type Render } from './response.ts';
import type { RequestScope, Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** Serves POST pods/{name}/binding and POST bindings: 201 with a Success Status. */
export function createBinding(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): void {
  const opts = createOptions(q, req, 'CreateOptions');
  const binding = decodeObject(scope.registry, req, body, { ...t, r: { ...t.r, kind: 'Binding' } });
  const name = t.name ?? str(metaOf(binding).name);
  admitNamespaceLifecycle(scope.storage, { operation: 'CREATE', group: '', resource: 'pods', namespace: t.namespace, name, object: binding });
  bindPod(scope, t.namespace, name, binding, opts.dryRun);
  sendObject(res, 201, bindingSuccess, render);
}
