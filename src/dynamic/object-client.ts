/**
 * The object client: reads and writes any object by its own apiVersion and kind, finding the resource
 * and scope through the {@link RestMapper} (what controller-runtime's client and client-node's
 * KubernetesObjectApi offer), and applies multi-document YAML manifests.
 */
import { parseAllDocuments } from 'yaml';
import type { Status } from '../api/meta/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { Unstructured } from '../apimachinery/object.ts';
import type { ApplyOptions, CreateOptions, DeleteOptions, GetOptions, PatchOptions, PatchTypeValue, RequestOptions, UpdateOptions } from '../apimachinery/options.ts';
import { DiscoveryClient } from '../discovery/discovery-client.ts';
import { RestMapper } from '../discovery/rest-mapper.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { checkNoManagedFields } from './dynamic-client.ts';

/** An object could not be addressed: no apiVersion/kind/name, or an unparsable manifest. */
export class InvalidObjectError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_INVALID_OBJECT', message, options);
  }
}

/** Options of {@link ObjectClient}. */
export interface ObjectClientOptions extends RestClientOptions {
  /** Namespace for namespaced objects that do not name one (default 'default', as kubectl). */
  defaultNamespace?: string;
  /** An existing mapper to share (default: a new one over this client's discovery). */
  mapper?: RestMapper;
}

/** The outcome of applying one document of a manifest. */
export interface ApplyResult {
  /** Position of the document in the manifest (0-based, empty documents counted). */
  index: number;
  /** The object's apiVersion. */
  apiVersion: string;
  /** The object's kind. */
  kind: string;
  /** Its namespace ('' for cluster-scoped objects). */
  namespace: string;
  /** Its name. */
  name: string;
  /** The object as the server stored it, when the apply succeeded. */
  object?: Unstructured;
  /** Why it failed, when it did (the other documents are still applied). */
  error?: Error;
}

/** Options of {@link ObjectClient.applyManifest}. */
export interface ApplyManifestOptions extends ApplyOptions {
  /** Namespace for namespaced objects that do not set one (default: the client's default namespace). */
  namespace?: string;
}

/** Reads and writes objects of any kind, resolved through discovery. */
export class ObjectClient {
  /** The client requests go through. */
  readonly rest: RestClient;
  /** Maps apiVersion/kind to resources (discovery-backed). */
  readonly mapper: RestMapper;
  /** Namespace for namespaced objects that name none. */
  readonly defaultNamespace: string;

  constructor(config: RestConfig | RestClient, options: ObjectClientOptions = {}) {
    this.rest = config instanceof RestClient ? config : new RestClient(config, options);
    // controller-runtime's client re-discovers on a miss, so a CRD applied just before its objects is found.
    this.mapper = options.mapper ?? new RestMapper(new DiscoveryClient(this.rest), { refreshOnMiss: true });
    this.defaultNamespace = options.defaultNamespace ?? 'default';
  }

  /** The resource client for an object's kind, in the object's namespace (or the default one). */
  async clientFor(obj: Unstructured, options?: RequestOptions & { namespace?: string }): Promise<{
    /** A client for the object's resource, in its namespace. */
    client: ResourceClient<Unstructured>;
    /** The object's name. */
    name: string;
    /** The namespace used ('' for cluster-scoped objects). */
    namespace: string;
  }> {
    const apiVersion = obj.apiVersion;
    const kind = obj.kind;
    if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
      throw new InvalidObjectError('the object must set apiVersion and kind');
    }
    const mapping = await this.mapper.mappingForApiVersionKind(apiVersion, kind, options);
    const namespace = mapping.namespaced ? obj.metadata?.namespace || options?.namespace || this.defaultNamespace : '';
    const client = new ResourceClient<Unstructured>(this.rest, { ...mapping.resource, kind, namespaced: mapping.namespaced, namespace, unstructured: true });
    return { client, name: obj.metadata?.name ?? '', namespace };
  }

  async #named(obj: Unstructured, verb: string, options?: RequestOptions): Promise<{ client: ResourceClient<Unstructured>; name: string; namespace: string }> {
    const target = await this.clientFor(obj, options);
    if (target.name === '') throw new InvalidObjectError(`${verb} ${obj.kind ?? 'object'}: metadata.name must be set`);
    return target;
  }

  /** Reads the current state of the object `obj` identifies. */
  async get(obj: Unstructured, options?: GetOptions): Promise<Unstructured> {
    const { client, name } = await this.#named(obj, 'get', options);
    return client.get(name, options);
  }

  /** Creates `obj`, resolving its resource from apiVersion/kind. */
  async create(obj: Unstructured, options?: CreateOptions): Promise<Unstructured> {
    const { client, namespace } = await this.clientFor(obj, options);
    return client.create(withNamespace(obj, namespace), options);
  }

  /** Replaces `obj` (PUT), resolving its resource from apiVersion/kind. */
  async update(obj: Unstructured, options?: UpdateOptions): Promise<Unstructured> {
    const { client, namespace } = await this.#named(obj, 'update', options);
    return client.update(withNamespace(obj, namespace), options);
  }

  /** Patches the object `obj` names (its apiVersion, kind, namespace and name). */
  async patch(obj: Unstructured, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<Unstructured> {
    const { client, name } = await this.#named(obj, 'patch', options);
    return client.patch(name, patchType, patch, options);
  }

  /** Server-side apply of `obj` (fieldManager required); refused when `obj` carries managedFields, as the dynamic client refuses it. */
  async apply(obj: Unstructured, options: ApplyOptions & { namespace?: string }): Promise<Unstructured> {
    checkNoManagedFields(obj);
    const { client, namespace } = await this.#named(obj, 'apply', options);
    return client.apply(withNamespace(obj, namespace), options);
  }

  /** Deletes the object `obj` names. */
  async delete(obj: Unstructured, options?: DeleteOptions): Promise<Status | Unstructured> {
    const { client, name } = await this.#named(obj, 'delete', options);
    return client.delete(name, options);
  }

  /**
   * Applies every document of a (multi-document) YAML manifest with server-side apply, in order.
   * Each document gets its own result; a failure does not stop the others. Empty documents are
   * skipped; a `List` document is expanded into its items.
   */
  async applyManifest(yamlText: string, options: ApplyManifestOptions): Promise<ApplyResult[]> {
    const results: ApplyResult[] = [];
    const docs = parseAllDocuments(yamlText);
    const list = Array.isArray(docs) ? docs : [docs];
    for (const [index, doc] of list.entries()) {
      const base: ApplyResult = { index, apiVersion: '', kind: '', namespace: '', name: '' };
      if (doc.errors.length > 0) {
        results.push({ ...base, error: new InvalidObjectError(`document ${index}: ${doc.errors[0]!.message}`, { cause: doc.errors[0] }) });
        continue;
      }
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) {
        results.push({ ...base, error: new InvalidObjectError(`document ${index} is not an object`) });
        continue;
      }
      const obj = value as Unstructured;
      const objects = typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj['items']) ? (obj['items'] as Unstructured[]) : [obj];
      for (const o of objects) results.push(await this.#applyOne(index, o, options));
    }
    return results;
  }

  async #applyOne(index: number, obj: Unstructured, options: ApplyManifestOptions): Promise<ApplyResult> {
    const result: ApplyResult = { index, apiVersion: String(obj.apiVersion ?? ''), kind: String(obj.kind ?? ''), namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
    try {
      const target = await this.clientFor(obj, options);
      result.namespace = target.namespace;
      if (target.name === '') throw new InvalidObjectError(`${result.kind}: metadata.name must be set`);
      checkNoManagedFields(obj);
      result.object = await target.client.apply(withNamespace(obj, target.namespace), options);
    } catch (err) {
      result.error = err instanceof Error ? err : new KubeloomError('ERR_KUBE_APPLY', String(err));
    }
    return result;
  }
}

function withNamespace(obj: Unstructured, namespace: string): Unstructured {
  if (namespace === '' || obj.metadata?.namespace === namespace) return obj;
  return { ...obj, metadata: { ...obj.metadata, namespace } };
}
