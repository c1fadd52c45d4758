/**
 * What an admission plugin is told about a request (k8s.io/apiserver/pkg/admission Attributes): the
 * operation, the resource and kind, namespace and name, the new and old objects, the user, dryRun and
 * the options object of the operation.
 */
import type { UserInfo } from '../authn/user.ts';

/** An admission operation. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The admission attributes of one request. */
export interface AdmissionAttributes {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: string;
  /**
   * The group and version of the kind when they are not the resource's: the autoscaling/v1 Scale of a
   * /scale subresource. Its objects are never converted between versions.
   */
  kindGroupVersion?: { group: string; version: string };
  namespaced: boolean;
  namespace: string;
  name: string;
  /** The object being written (undefined for DELETE). */
  object: Record<string, unknown> | undefined;
  /** The stored object (UPDATE, DELETE). */
  oldObject: Record<string, unknown> | undefined;
  user: UserInfo;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions. */
  options: Record<string, unknown>;
  /** Labels of the request's namespace (for namespaceSelector), undefined when it does not exist. */
  namespaceLabels: Record<string, string> | undefined;
  /**
   * Converts an object of this resource to another of its versions (the ObjectInterfaces' convertor
   * admission webhooks use): a custom resource's conversion webhook, called as kube-apiserver calls it
   * for a webhook registered for another version. Absent: only the apiVersion changes (strategy None).
   * Rejects with the Status the request fails with.
   */
  convertObject?: (obj: Record<string, unknown>, version: string) => Promise<Record<string, unknown>>;
}
