/**
 * The AdmissionReview wire types (k8s.io/api/admission/v1 types.go; v1beta1 has the same fields), as
 * a webhook receives and answers them. kubeloom's generated API has no admission.k8s.io package (the
 * group serves no resources), so the shapes are declared here.
 */
import type { Status } from '../../api/meta/v1.ts';

/** The operations an AdmissionRequest can carry (admission/v1 Operation). */
export const Operation = {
  /** The object is being created. */
  Create: 'CREATE',
  /** The object is being replaced or patched. */
  Update: 'UPDATE',
  /** The object is being deleted; `oldObject` holds it. */
  Delete: 'DELETE',
  /** A connect subresource (exec, attach, port-forward, proxy). */
  Connect: 'CONNECT',
} as const;

/** One of {@link Operation}'s values. */
export type OperationValue = (typeof Operation)[keyof typeof Operation];

/** A group, version and kind (metav1.GroupVersionKind). */
export interface GroupVersionKind {
  /** API group ('' for the core group). */
  group: string;
  /** API version. */
  version: string;
  /** Kind, CamelCase. */
  kind: string;
}

/** A group, version and resource (metav1.GroupVersionResource). */
export interface GroupVersionResource {
  /** API group ('' for the core group). */
  group: string;
  /** API version. */
  version: string;
  /** Resource, plural and lower-case. */
  resource: string;
}

/** The user who made the request (authentication/v1 UserInfo). */
export interface UserInfo {
  /** User name. */
  username?: string;
  /** Unique id of the user. */
  uid?: string;
  /** Groups the user belongs to. */
  groups?: string[];
  /** Additional attributes of the authenticator. */
  extra?: Record<string, string[]>;
}

/** The request of an AdmissionReview (admission/v1 AdmissionRequest). */
export interface AdmissionRequest<T = Record<string, unknown>> {
  /** Identifies this call; the response must echo it. */
  uid: string;
  /** The kind of the object, in the version the webhook asked for. */
  kind: GroupVersionKind;
  /** The resource being requested, in the version the webhook asked for. */
  resource: GroupVersionResource;
  /** The subresource, if any ('status', 'scale', …). */
  subResource?: string;
  /** The kind of the original request (it may differ from `kind` under matchPolicy Equivalent). */
  requestKind?: GroupVersionKind;
  /** The resource of the original request. */
  requestResource?: GroupVersionResource;
  /** The subresource of the original request. */
  requestSubResource?: string;
  /** The object's name (may be empty on create with generateName). */
  name?: string;
  /** The object's namespace, for namespaced resources. */
  namespace?: string;
  /** The operation. */
  operation: OperationValue;
  /** Who made the request. */
  userInfo: UserInfo;
  /** The new object (create, update, connect); null otherwise. */
  object?: T | null;
  /** The existing object (update, delete); null otherwise. */
  oldObject?: T | null;
  /** True for dry-run requests: the webhook must not have side effects. */
  dryRun?: boolean;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions, …). */
  options?: Record<string, unknown> | null;
}

/** The Status of an admission response (metav1.Status without its type meta). */
export type ResultStatus = Omit<Status, 'apiVersion' | 'kind'>;

/** The response of an AdmissionReview on the wire (admission/v1 AdmissionResponse). */
export interface AdmissionResponseWire {
  /** The request's uid. */
  uid: string;
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why: the Status returned to the client when the request is denied. */
  status?: ResultStatus;
  /** A base64 JSONPatch to apply to the object. */
  patch?: string;
  /** 'JSONPatch' when `patch` is set. */
  patchType?: 'JSONPatch';
  /** Annotations added to the audit event. */
  auditAnnotations?: Record<string, string>;
  /** Warnings returned to the client (Warning headers). */
  warnings?: string[];
}

/** An AdmissionReview (admission.k8s.io/v1 or v1beta1). */
export interface AdmissionReview {
  /** 'admission.k8s.io/v1' or 'admission.k8s.io/v1beta1'. */
  apiVersion: string;
  /** 'AdmissionReview'. */
  kind: string;
  /** Set in what the API server sends. */
  request?: AdmissionRequest;
  /** Set in what the webhook answers. */
  response?: AdmissionResponseWire;
}

/** One RFC 6902 operation (gomodules.xyz/jsonpatch JsonPatchOperation). */
export interface JsonPatchOperation {
  /** add, remove, replace (the diff emits only these three). */
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** JSON Pointer of the target. */
  path: string;
  /** The value of add, replace and test. */
  value?: unknown;
  /** The source of move and copy. */
  from?: string;
}
