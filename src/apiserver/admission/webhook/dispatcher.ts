/**
 * The admission webhook dispatchers (apiserver/pkg/admission/plugin/webhook/mutating and validating):
 * configurations in name order, webhooks in their order. Mutating webhooks run one after another, each
 * seeing the previous one's JSONPatch applied; with reinvocationPolicy IfNeeded a webhook is called once
 * more when a later webhook changed the object. Validating webhooks run concurrently and the first
 * rejection wins. A webhook that cannot be called (refused, timed out, wrong CA, garbage answer) is
 * skipped under failurePolicy Ignore and fails the request with a 500 under Fail (the v1 default); a
 * denial is the webhook's Status prefixed with `admission webhook "<name>" denied the request`. Dry-run
 * requests only reach webhooks whose sideEffects are None or NoneOnDryRun.
 */
import { randomUUID } from 'node:crypto';
import type { MutatingWebhook, ValidatingWebhook } from '../../../api/admissionregistration/v1.ts';
import { StatusError, newStatus } from '../../../apimachinery/errors.ts';
import type { Clock } from '../../../util/clock/clock.ts';
import { applyJsonPatch } from '../../patch/index.ts';
import { badRequest, internalError, reasonForCode } from '../../status.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import { callWebhook, WebhookCallError, type AdmissionResponse, type ServiceResolver } from './call.ts';
import { matchingVersion, selectorsMatch } from './matching.ts';
import { patchApplyError, patchDecodeError } from './patch-errors.ts';

type Obj = Record<string, unknown>;

/** What the dispatchers need from the server. */
export interface DispatcherContext {
  clock: Clock;
  resolveService: ServiceResolver;
  /** The served versions of a group/resource (for matchPolicy Equivalent). */
  servedVersions(group: string, resource: string): string[];
  /** Reports a Warning header value. */
  warn(text: string): void;
}

/** ToStatusErr: the rejection Status of a webhook that answered allowed: false. */
export function rejection(name: string, result: AdmissionResponse['status']): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof result?.code === 'number' && result.code >= 400 ? result.code : 400;
  let message: string;
  if (result?.message !== undefined && result.message !== '') message = `${deniedBy}: ${result.message}`;
  else if (result?.reason !== undefined && result.reason !== '') message = `${deniedBy}: ${result.reason}`;
  else message = `${deniedBy} without explanation`;
  const status = newStatus(code, result?.reason ?? '', message);
  // An empty reason is left out of the Status, as Go's omitempty leaves it.
  if (status.reason === '') delete status.reason;
  if (result?.details !== undefined) status.details = result.details as object;
  return new StatusError(status);
}

function userInfoOf(a: AdmissionAttributes): Obj {
  const u: Obj = { username: a.user.name };
  if (a.user.uid !== '') u.uid = a.user.uid;
  if (a.user.groups.length > 0) u.groups = [...a.user.groups];
  if (Object.keys(a.user.extra).length > 0) u.extra = a.user.extra;
  return u;
}

// The object as the webhook's version sees it when it converts without a webhook (strategy None, built-in
// kinds here): only apiVersion changes.
function inVersion(o: Obj, group: string, version: string): Obj {
  return { ...o, apiVersion: group === '' ? version : `${group}/${version}` };
}

/**
 * The request's objects in the version of the webhooks being called (generic.VersionedAttributes in
 * apiserver/pkg/admission/plugin/webhook/generic/conversion.go): `version` is the kind's version
 * they are in, `dirty` says a mutating webhook changed `object` since it was converted.
 */
export interface VersionedAttributes {
  version: string;
  object: Obj | undefined;
  oldObject: Obj | undefined;
  dirty: boolean;
}

// The version objects of the request are in before any conversion.
const requestVersionOf = (a: AdmissionAttributes): string => a.kindGroupVersion?.version ?? a.version;

/**
 * ConvertToGVK: an object of the request in `version`. The Scale of a /scale subresource is
 * autoscaling/v1 in every version of the resource and is never converted; a custom resource with a
 * conversion webhook is converted through it (not when it is in that version already, as upstream
 * compares the object's kind first); anything else only changes its apiVersion.
 */
async function convertToVersion(a: AdmissionAttributes, o: Obj, version: string): Promise<Obj> {
  if (a.kindGroupVersion !== undefined) return o;
  const apiVersion = a.group === '' ? version : `${a.group}/${version}`;
  if (a.convertObject === undefined) return inVersion(o, a.group, version);
  if (o.apiVersion === apiVersion) return o;
  return a.convertObject(o, version);
}

/** NewVersionedAttributes: the old object, then the new one, converted to `version`. */
export async function newVersionedAttributes(a: AdmissionAttributes, version: string): Promise<VersionedAttributes> {
  const oldObject = a.oldObject === undefined ? undefined : await convertToVersion(a, a.oldObject, version);
  const object = a.object === undefined ? undefined : await convertToVersion(a, a.object, version);
  return { version, object, oldObject, dirty: false };
}

/**
 * ConvertVersionedAttributes: nothing when `v` is in `version` already; otherwise the original old
 * object is converted, and the new object — first back to the request's version when a webhook changed
 * it (which updates `a.object`), then to `version`.
 */
async function convertVersionedAttributes(v: VersionedAttributes, a: AdmissionAttributes, version: string): Promise<void> {
  if (v.version === version) return;
  if (a.oldObject !== undefined) v.oldObject = await convertToVersion(a, a.oldObject, version);
  if (v.object !== undefined) {
    if (v.dirty) a.object = await convertToVersion(a, v.object, requestVersionOf(a));
    v.object = a.object === undefined ? undefined : await convertToVersion(a, a.object, version);
  }
  v.version = version;
  v.dirty = false;
}

/**
 * The AdmissionReview v1 sent for a request to a webhook called in `version` (CreateV1AdmissionReview):
 * `kind`/`resource` are the webhook's, `requestKind`/`requestResource` the request's, the objects those
 * of `versioned`.
 */
export function admissionReview(a: AdmissionAttributes, version: string, versioned: Pick<VersionedAttributes, 'object' | 'oldObject'>): Obj {
  const request: Obj = {
    uid: randomUUID(),
    kind: a.kindGroupVersion === undefined ? { group: a.group, version, kind: a.kind } : { ...a.kindGroupVersion, kind: a.kind },
    resource: { group: a.group, version, resource: a.resource },
    ...(a.subresource === '' ? {} : { subResource: a.subresource }),
    requestKind: { ...(a.kindGroupVersion ?? { group: a.group, version: a.version }), kind: a.kind },
    requestResource: { group: a.group, version: a.version, resource: a.resource },
    ...(a.subresource === '' ? {} : { requestSubResource: a.subresource }),
    ...(a.name === '' ? {} : { name: a.name }),
    ...(a.namespace === '' ? {} : { namespace: a.namespace }),
    operation: a.operation,
    userInfo: userInfoOf(a),
    object: versioned.object ?? null,
    oldObject: versioned.oldObject ?? null,
    dryRun: a.dryRun,
    options: a.options,
  };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

type Hook = (MutatingWebhook | ValidatingWebhook) & { reinvocationPolicy?: string };

// Calls one webhook; returns its response, or undefined when it failed open. Throws for fail-closed errors.
async function invoke(hook: Hook, a: AdmissionAttributes, version: string, versioned: VersionedAttributes, mutating: boolean, ctx: DispatcherContext): Promise<AdmissionResponse | undefined> {
  if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
  try {
    return await callWebhook(hook.clientConfig, hook.timeoutSeconds, admissionReview(a, version, versioned), mutating, ctx.resolveService, ctx.clock);
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    if ((hook.failurePolicy ?? 'Fail') === 'Ignore') return undefined;
    throw internalError(`failed calling webhook ${JSON.stringify(hook.name)}: ${err.message}`);
  }
}

function applies(hook: Hook, a: AdmissionAttributes, ctx: DispatcherContext): string | undefined {
  const version = matchingVersion(hook, a, ctx.servedVersions(a.group, a.resource));
  if (version === undefined) return undefined;
  return selectorsMatch(hook, a) ? version : undefined;
}

/**
 * Runs the mutating webhooks; returns the object after their patches (the input when nothing changed).
 * Throws the Status of a rejection or of a fail-closed call failure. As upstream's mutatingDispatcher,
 * the objects are converted to a webhook's version when it is called in another one (and, once a
 * webhook changed the object, back to the request's version before converting to the next webhook's),
 * and at the end of a round back to the request's version if a webhook changed them.
 */
export async function runMutatingWebhooks(hooks: readonly MutatingWebhook[], a: AdmissionAttributes, ctx: DispatcherContext): Promise<Obj | undefined> {
  // The attributes of the request as they stand, `object` replaced as webhooks change it.
  const attrs: AdmissionAttributes = { ...a };
  const invokedReinvocable: MutatingWebhook[] = [];
  const toReinvoke = new Set<MutatingWebhook>();
  const round = async (list: readonly MutatingWebhook[], reinvoking: boolean): Promise<void> => {
    let versioned: VersionedAttributes | undefined;
    for (const hook of list) {
      if (reinvoking && !toReinvoke.has(hook)) continue;
      const version = applies(hook, versioned === undefined ? attrs : { ...attrs, object: versioned.object, oldObject: versioned.oldObject }, ctx);
      if (version === undefined) continue;
      const kindVersion = a.kindGroupVersion === undefined ? version : a.kindGroupVersion.version;
      if (versioned === undefined) versioned = await newVersionedAttributes(attrs, kindVersion);
      else await convertVersionedAttributes(versioned, attrs, kindVersion);
      const r = await invoke(hook, attrs, version, versioned, true, ctx);
      let changed = false;
      if (r !== undefined) {
        for (const w of r.warnings ?? []) ctx.warn(w);
        if (!r.allowed) throw rejection(hook.name, r.status);
        if (r.patch !== undefined && r.patch !== '') {
          const target = versioned.object;
          if (target === undefined) throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
          let ops: unknown;
          try {
            ops = JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8'));
          } catch (err) {
            throw internalError(`failed calling webhook ${JSON.stringify(hook.name)}: ${(err as Error).message}`);
          }
          const decodeError = patchDecodeError(ops);
          if (decodeError !== undefined) throw internalError(decodeError);
          let patched: unknown;
          try {
            patched = applyJsonPatch(target, ops as unknown[]);
          } catch (err) {
            throw internalError(patchApplyError(target, ops as unknown[]) ?? (err as Error).message);
          }
          // The webhook's version stays whatever the patch did to apiVersion (Go decodes into the versioned kind).
          const next = { ...(patched as Obj), apiVersion: target.apiVersion };
          changed = JSON.stringify(next) !== JSON.stringify(target);
          versioned.object = next;
          versioned.dirty = true;
        }
      }
      if (changed && !reinvoking) for (const h of invokedReinvocable) toReinvoke.add(h);
      if (!reinvoking && hook.reinvocationPolicy === 'IfNeeded') invokedReinvocable.push(hook);
    }
    // The changed object back in the request's version.
    if (versioned?.object !== undefined && versioned.dirty) attrs.object = await convertToVersion(attrs, versioned.object, requestVersionOf(a));
  };
  await round(hooks, false);
  if (toReinvoke.size > 0) await round(hooks, true);
  return attrs.object;
}

/**
 * Runs the validating webhooks concurrently; throws the first rejection or fail-closed failure. The
 * objects are first converted to every version a webhook is called in, once per version, before any
 * webhook is called (upstream's validatingDispatcher).
 */
export async function runValidatingWebhooks(hooks: readonly ValidatingWebhook[], a: AdmissionAttributes, ctx: DispatcherContext): Promise<void> {
  const relevant: { hook: ValidatingWebhook; version: string; kindVersion: string }[] = [];
  const versionedAttrs = new Map<string, VersionedAttributes>();
  for (const hook of hooks) {
    const version = applies(hook, a, ctx);
    if (version === undefined) continue;
    const kindVersion = a.kindGroupVersion === undefined ? version : a.kindGroupVersion.version;
    relevant.push({ hook, version, kindVersion });
    if (!versionedAttrs.has(kindVersion)) versionedAttrs.set(kindVersion, await newVersionedAttributes(a, kindVersion));
  }
  const results = await Promise.allSettled(
    relevant.map(async ({ hook, version, kindVersion }) => {
      const r = await invoke(hook, a, version, versionedAttrs.get(kindVersion)!, false, ctx);
      if (r === undefined) return;
      for (const w of r.warnings ?? []) ctx.warn(w);
      if (!r.allowed) throw rejection(hook.name, r.status);
    }),
  );
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

/** The reason matching a webhook-supplied code, for callers that build Statuses. */
export { reasonForCode };
