/**
 * Records what requests asked to do, as the authorizer sees it (the authorizer.Attributes of
 * k8s.io/apiserver/pkg/authorization/authorizer: user, verb — list, watch and get told apart —, API
 * group, resource, subresource, namespace, name), plus the client's User-Agent. kube-apiserver's audit
 * log carries the same fields (its `objectRef`, `verb`, `user`, `userAgent`), which audit2rbac reads;
 * kubeloom appends one JSON line per distinct request to a file instead, for `kubeloom rbac learn`.
 * Lines are written with one synchronous append each, so servers in several processes of one test run
 * can share the file.
 */
import { appendFileSync } from 'node:fs';
import type { UserInfo } from '../authn/user.ts';
import { requestInfo } from './request-info.ts';

/** One recorded request: its authorizer attributes, its user and its User-Agent. */
export interface RecordedRequest {
  /** The authenticated (or impersonated) user's name. */
  user: string;
  /** The user's groups. */
  groups: string[];
  /** The client's User-Agent header ('' without one). */
  userAgent: string;
  /** The authorizer's verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, … */
  verb: string;
  /** False for non-resource URLs (`/healthz`, `/apis`): then only `path` and `verb` matter. */
  resourceRequest: boolean;
  /** The URL path of a non-resource request ('' for resource requests). */
  path: string;
  /** The API group ('' for the core group). */
  apiGroup: string;
  /** The resource (plural). */
  resource: string;
  /** The subresource ('' for none). */
  subresource: string;
  /** The namespace ('' for cluster-scoped requests and requests across all namespaces). */
  namespace: string;
  /** The object's name ('' for lists, watches and creates). */
  name: string;
  /** A watch that asked for its initial events (a streaming list, `sendInitialEvents=true`). */
  sendInitialEvents?: true;
}

/** Appends each distinct request (by its attributes, user and User-Agent) to a JSON-lines file. */
export class RequestRecorder {
  readonly file: string;
  // Requests already written by this server: a test suite repeats the same few thousand times.
  readonly #seen = new Set<string>();

  constructor(file: string) {
    this.file = file;
  }

  /** Records one request, before it is authorized (a refused request still says what was needed). */
  record(user: UserInfo, userAgent: string | undefined, method: string, path: string, query: URLSearchParams): void {
    const info = requestInfo(method, path, query);
    const r: RecordedRequest = {
      user: user.name,
      groups: [...user.groups],
      userAgent: userAgent ?? '',
      verb: info.verb,
      resourceRequest: info.resourceRequest,
      path: info.resourceRequest ? '' : info.path,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    if (info.verb === 'watch' && query.get('sendInitialEvents') === 'true') r.sendInitialEvents = true;
    const line = JSON.stringify(r);
    if (this.#seen.has(line)) return;
    this.#seen.add(line);
    appendFileSync(this.file, `${line}\n`);
  }
}
