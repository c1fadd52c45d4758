/**
 * kubeloom/client: the manager's client (controller-runtime pkg/client) — cached reads with
 * read-your-writes, writes to the API server — and the typed kind descriptors it takes.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { Client, ClientRequestError, ignoreNotFound } from './client.ts';
export { deepCopy } from './deep-copy.ts';
export { MutateKeyChangedError, OperationResult, createOrPatch, createOrUpdate } from './controllerutil.ts';
export type { MutateFn, OperationResultValue } from './controllerutil.ts';
export type { DeepMutable, DeepReadonly } from './deep-copy.ts';
export type { ClientGetOptions, ClientListOptions, ClientOptions, DeleteAllOfOptions, ObjectKey, RequestObserver, SubResourceClient } from './client.ts';
export { apiVersionOfKind, kindKey, kinds } from './kinds.ts';
export type { BuiltinKinds, ClientOf, KindOfClient, ObjectOf, ResourceKind } from './kinds.ts';
export { AlreadyOwnedError, controllerOf, ownerReferenceFor, setControllerReference, setOwnerReference } from './owner.ts';
