/**
 * The built-in admission plugins kube-apiserver runs on every write after the body is decoded and managed
 * fields are recorded, before the registry prepares and validates the object. Mutating plugins first,
 * then validating ones; each may refuse the request with its Status. Admission webhooks (admission.ts)
 * run after the built-in plugins of each phase.
 *
 * The embedded server enables the plugins of kube-apiserver's default set whose effect a client can see
 * without other components: NamespaceLifecycle, Priority, DefaultTolerationSeconds and
 * TaintNodesByCondition (`plugin/pkg/admission/...`). ServiceAccount admission is left out, as on a
 * cluster started with `--disable-admission-plugins=ServiceAccount`.
 */
import type { ApiResource } from '../resources.ts';
import type { Operation } from './attributes.ts';
import type { Storage } from '../storage.ts';
import { admitNamespaceLifecycle } from './namespace-lifecycle.ts';
import { defaultTolerationSeconds, priority, taintNodesByCondition } from './pods.ts';

type Obj = Record<string, unknown>;

/** The operation being admitted. */
export type PluginOperation = Exclude<Operation, 'CONNECT'>;

/** What a plugin sees of a request. */
export interface PluginAttributes {
  readonly operation: PluginOperation;
  readonly resource: ApiResource;
  /** '' for the main resource. */
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The object being written (mutable for mutating plugins); undefined for DELETE. */
  readonly object: Obj | undefined;
  readonly oldObject: Obj | undefined;
  readonly storage: Storage;
}

/** An admission plugin: mutates `attrs.object` and/or throws a StatusError to refuse. */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attrs: PluginAttributes): void;
  validate?(attrs: PluginAttributes): void;
}

/** NamespaceLifecycle (namespace-lifecycle.ts) run on a request's attributes. */
const namespaceLifecycle: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  admit: (a) =>
    admitNamespaceLifecycle(a.storage, { operation: a.operation, group: a.resource.group, resource: a.resource.resource, namespace: a.resource.namespaced ? a.namespace : '', name: a.name, object: a.object }),
};

/** The enabled plugins, in kube-apiserver's order. */
export const defaultPlugins: readonly AdmissionPlugin[] = [namespaceLifecycle, taintNodesByCondition, priority, defaultTolerationSeconds];

/** Runs the mutating phase of every plugin. */
export function admit(attrs: PluginAttributes, plugins: readonly AdmissionPlugin[] = defaultPlugins): void {
  for (const p of plugins) p.admit?.(attrs);
}

/** Runs the validating phase of every plugin. */
export function validateAdmission(attrs: PluginAttributes, plugins: readonly AdmissionPlugin[] = defaultPlugins): void {
  for (const p of plugins) p.validate?.(attrs);
}
